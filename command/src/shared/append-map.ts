interface Log<K, V> {
  entries: Map<K, { value: V; at: number }>;
  /** How many additions the log holds: the next one's `at`. */
  end: number;
}

/**
 * A persistent map that only grows, for deciders' states: adding a key costs O(1), not a copy of the map, and a state
 * folded once never changes. The states folded from one history share one log and each sees the additions made before
 * it (`at < end`); a state that adds from behind the log's end (a decide's look-ahead, then the real fold) starts its
 * own copy.
 */
export class AppendMap<K, V> {
  private constructor(
    private readonly log: Log<K, V>,
    private readonly end: number,
  ) {}

  static empty<K, V>(): AppendMap<K, V> {
    return new AppendMap<K, V>({ entries: new Map(), end: 0 }, 0);
  }

  get(key: K): V | undefined {
    const entry = this.log.entries.get(key);
    return entry && entry.at < this.end ? entry.value : undefined;
  }

  has(key: K): boolean {
    const entry = this.log.entries.get(key);
    return entry !== undefined && entry.at < this.end;
  }

  /** This map with `key` set to `value`; a key already present is replaced (which copies the log). */
  with(key: K, value: V): AppendMap<K, V> {
    const log = this.log.end === this.end && !this.log.entries.has(key) ? this.log : this.copy();
    log.entries.set(key, { value, at: this.end });
    log.end = this.end + 1;
    return new AppendMap(log, this.end + 1);
  }

  *entries(): IterableIterator<[K, V]> {
    for (const [key, entry] of this.log.entries) if (entry.at < this.end) yield [key, entry.value];
  }

  *keys(): IterableIterator<K> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): IterableIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  private copy(): Log<K, V> {
    const entries = new Map<K, { value: V; at: number }>();
    for (const [key, entry] of this.log.entries) if (entry.at < this.end) entries.set(key, entry);
    return { entries, end: this.end };
  }
}
