const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The lookups of a table whose rows the admin API and the CLI address by id or by name. */
export interface IdOrNameLookup<T> {
  findById(id: string): Promise<T | null>;
  findByName(name: string): Promise<T | null>;
}

/**
 * The row `idOrName` names: by id when it has a UUID's shape (ids are UUIDs; looking one up by
 * any other text would be a database error), else, or when no row has that id, by name.
 */
export async function findByIdOrName<T>(
  idOrName: string,
  lookup: IdOrNameLookup<T>,
): Promise<T | null> {
  return (
    (UUID.test(idOrName) ? await lookup.findById(idOrName) : null) ??
    (await lookup.findByName(idOrName))
  );
}
