/**
 * Field names whose values are credentials: never written to the audit log, whatever object they
 * turn up in. Key objects as the API shows them carry only the secret's display prefix; this is
 * the net under that.
 */
const SECRET_FIELDS =
  /^(secret|secret_?hash|previous_?secret_?hash|admin_?key|client_?secret|password|(id|access|refresh)_?token)$/i;

/** A deep copy of `value` without secret fields, dates as ISO strings. */
export function redact(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(redact);
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(value as Record<string, unknown>)) {
      if (SECRET_FIELDS.test(name) || field === undefined) continue;
      out[name] = redact(field);
    }
    return out;
  }
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/**
 * The fields that differ between two snapshots, as a before/after pair of the same keys; null
 * for both when nothing changed. Arrays and objects compare by value.
 */
export function changedFields(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): { before: Record<string, unknown>; after: Record<string, unknown> } | null {
  const old = redact(before) as Record<string, unknown>;
  const now = redact(after) as Record<string, unknown>;
  const fields = new Set([...Object.keys(old), ...Object.keys(now)]);
  const diff = { before: {} as Record<string, unknown>, after: {} as Record<string, unknown> };
  for (const field of fields) {
    if (JSON.stringify(old[field] ?? null) === JSON.stringify(now[field] ?? null)) continue;
    diff.before[field] = old[field] ?? null;
    diff.after[field] = now[field] ?? null;
  }
  return Object.keys(diff.after).length > 0 ? diff : null;
}
