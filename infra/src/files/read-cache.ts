import type { FileStore } from '@iot/contracts/ports/files.ts';

const MB = 1024 * 1024;

/**
 * Reads of small files kept in memory: a rollout's package is fetched by every device of a wave, range by range over
 * HTTP and chunk by chunk over MQTT, and each read went to the disk or the bucket again (open, stat, read, close). A
 * stored object never changes under its key (each upload has a key of its own), so a file up to `maxFileBytes` is read
 * once, whole, and its ranges are served from memory, the least recently read dropped past `maxBytes`; a `put` or a
 * `remove` of the key forgets it.
 */
export function cachedFileReads(store: FileStore, { maxBytes = 64 * MB, maxFileBytes = 8 * MB } = {}): FileStore {
  const kept = new Map<string, Buffer>();
  const loading = new Map<string, Promise<Buffer | null>>();
  let bytes = 0;

  const forget = (key: string) => {
    const buffer = kept.get(key);
    if (buffer) bytes -= buffer.length;
    kept.delete(key);
    loading.delete(key);
  };
  const keep = (key: string, buffer: Buffer) => {
    forget(key);
    kept.set(key, buffer);
    bytes += buffer.length;
    for (const [oldest, old] of kept) {
      if (bytes <= maxBytes) break;
      kept.delete(oldest);
      bytes -= old.length;
    }
  };
  /** The whole object from memory or read once (concurrent first reads share it); null when it is too big or absent. */
  const whole = async (key: string): Promise<Buffer | null> => {
    const buffer = kept.get(key);
    if (buffer) {
      // Most recently read last.
      kept.delete(key);
      kept.set(key, buffer);
      return buffer;
    }
    let pending = loading.get(key);
    if (!pending) {
      pending = (async () => {
        const size = await store.size(key);
        if (size === null || size > maxFileBytes) return null;
        const body = await store.read(key);
        if (!body) return null;
        const parts: Uint8Array[] = [];
        for await (const part of body) parts.push(part);
        return Buffer.concat(parts);
      })();
      loading.set(key, pending);
      void pending
        .then((loaded) => {
          if (loading.get(key) !== pending) return;
          loading.delete(key);
          if (loaded) keep(key, loaded);
        })
        .catch(() => loading.delete(key));
    }
    return pending;
  };

  return {
    async put(key, body) {
      forget(key);
      return store.put(key, body);
    },
    async read(key, range) {
      const buffer = await whole(key);
      if (!buffer) return store.read(key, range);
      const part = range ? buffer.subarray(range.start, range.end + 1) : buffer;
      return (async function* () {
        yield part;
      })();
    },
    async size(key) {
      return kept.get(key)?.length ?? store.size(key);
    },
    async remove(key) {
      forget(key);
      await store.remove(key);
    },
  };
}
