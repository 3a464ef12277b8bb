/**
 * Whether two JSON-like values are equal: key order does not count (a stored event's payload comes back
 * with its keys in another order) and a key holding `undefined` counts as absent, as it does in JSON.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((value, i) => sameValue(value, b[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = (o: Record<string, unknown>) => Object.keys(o).filter((k) => o[k] !== undefined);
  const xKeys = keys(x);
  return xKeys.length === keys(y).length && xKeys.every((k) => Object.hasOwn(y, k) && sameValue(x[k], y[k]));
}
