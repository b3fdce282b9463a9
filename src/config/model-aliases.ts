/**
 * Other names for public models (`aliases:` in GATEWAY_CONFIG): an exact name, or a prefix ending
 * in `*`. A request naming an alias is served, limited and accounted as its public model; the
 * answer echoes the name the client sent. Clients with model names of their own (Claude Code
 * asks for its background model by a Claude name) reach the gateway's models this way.
 */
export interface ModelAliases {
  exact: ReadonlyMap<string, string>;
  /** Prefix aliases without their `*`, longest first: the most specific one wins. */
  prefixes: ReadonlyArray<{ prefix: string; model: string }>;
}

export const NO_ALIASES: ModelAliases = { exact: new Map(), prefixes: [] };

const ALIAS_NAME = /^[A-Za-z0-9][\w.:/@-]{0,127}\*?$/;

/**
 * Validates the `aliases` mapping against the public models. An alias to an unknown model, and
 * one that would take requests meant for a public model (a name equal to one, or a prefix one
 * starts with), is an error naming it: the config is refused rather than a model made
 * unreachable.
 */
export function parseAliases(value: unknown, models: ReadonlyMap<string, unknown>): ModelAliases {
  if (value === undefined || value === null) return NO_ALIASES;
  if (typeof value !== 'object' || Array.isArray(value))
    throw new Error('aliases: expected a mapping of alias name to public model');
  const exact = new Map<string, string>();
  const prefixes: Array<{ prefix: string; model: string }> = [];
  for (const [name, target] of Object.entries(value as Record<string, unknown>)) {
    if (!ALIAS_NAME.test(name))
      throw new Error(
        `aliases: "${name}" is not a valid alias (a model name, or a prefix ending in *)`,
      );
    if (typeof target !== 'string')
      throw new Error(`aliases.${name}: expected the name of a public model`);
    if (!models.has(target))
      throw new Error(
        `aliases.${name}: unknown model "${target}" (public models: ${[...models.keys()].join(', ')})`,
      );
    if (name.endsWith('*')) {
      const prefix = name.slice(0, -1);
      const shadowed = [...models.keys()].find((model) => model.startsWith(prefix));
      if (shadowed !== undefined)
        throw new Error(`aliases.${name}: shadows the public model "${shadowed}"`);
      prefixes.push({ prefix, model: target });
    } else {
      if (models.has(name)) throw new Error(`aliases.${name}: shadows the public model "${name}"`);
      exact.set(name, target);
    }
  }
  prefixes.sort((a, b) => b.prefix.length - a.prefix.length);
  return { exact, prefixes };
}

/** The public model an alias stands for; undefined for a name that is no alias. */
export function resolveAlias(aliases: ModelAliases, name: string): string | undefined {
  const exact = aliases.exact.get(name);
  if (exact !== undefined) return exact;
  for (const { prefix, model } of aliases.prefixes) if (name.startsWith(prefix)) return model;
  return undefined;
}
