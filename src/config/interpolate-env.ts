const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}/g;

/**
 * Replaces `${NAME}`, `${NAME:-default}` and `${NAME-default}` in every string of an already
 * parsed YAML tree, with the shell's rules: `:-` takes the default when NAME is unset or empty,
 * `-` only when it is unset, and a plain `${NAME}` set to "" becomes "" (the field's own
 * validation then says whether empty is allowed). Only an unset NAME without default is an error.
 * Done after parsing so a variable's value can never change the document's structure.
 */
export function interpolateEnv(value: unknown, env: NodeJS.ProcessEnv, path = ''): unknown {
  if (typeof value === 'string') {
    return value.replace(
      REFERENCE,
      (_match, name: string, operator: string | undefined, fallback: string | undefined) => {
        const found = env[name];
        if (operator === ':-' && (found === undefined || found === '')) return fallback!;
        if (operator === '-' && found === undefined) return fallback!;
        if (found !== undefined) return found;
        throw new Error(
          `${path || 'config'}: environment variable ${name} is not set (write \${${name}:-default} for a default)`,
        );
      },
    );
  }
  if (Array.isArray(value))
    return value.map((item, i) => interpolateEnv(item, env, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        interpolateEnv(item, env, path ? `${path}.${key}` : key),
      ]),
    );
  }
  return value;
}
