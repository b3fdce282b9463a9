const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replaces `${NAME}` and `${NAME:-default}` in every string of an already parsed YAML tree.
 * Done after parsing so a variable's value can never change the document's structure.
 */
export function interpolateEnv(value: unknown, env: NodeJS.ProcessEnv, path = ''): unknown {
  if (typeof value === 'string') {
    return value.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      throw new Error(`${path || 'config'}: environment variable ${name} is not set`);
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => interpolateEnv(item, env, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, interpolateEnv(item, env, path ? `${path}.${key}` : key)]),
    );
  }
  return value;
}
