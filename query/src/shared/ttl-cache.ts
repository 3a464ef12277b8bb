/**
 * A value kept for a few seconds per key, for answers that many callers ask for and that may lag a little (the home
 * dashboard's counts). Concurrent callers of a key share one computation; a failed one is not kept. Bounded: past
 * `maxKeys` the oldest key goes.
 */
export function ttlCache<T>(ttlMs: number, maxKeys = 1_000) {
  const entries = new Map<string, { at: number; value: Promise<T> }>();
  return (key: string, compute: () => Promise<T>, now = Date.now()): Promise<T> => {
    const hit = entries.get(key);
    if (hit && now - hit.at < ttlMs) return hit.value;
    entries.delete(key);
    const value = compute();
    entries.set(key, { at: now, value });
    value.catch(() => {
      if (entries.get(key)?.value === value) entries.delete(key);
    });
    if (entries.size > maxKeys) entries.delete(entries.keys().next().value!);
    return value;
  };
}
