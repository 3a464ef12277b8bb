import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FileStore } from '@iot/contracts/ports/files.ts';
import { checkedKey } from './key.ts';

/** Files on local disk under `root` (DATA_DIR/files): the embedded default. A write lands whole or not at all. */
export function localFileStore(root: string): FileStore {
  const pathOf = (key: string) => path.join(root, checkedKey(key));
  return {
    async put(key, body) {
      const target = pathOf(key);
      await mkdir(path.dirname(target), { recursive: true });
      const partial = `${target}.${randomUUID()}.part`;
      const hash = createHash('sha256');
      let size = 0;
      try {
        await pipeline(async function* () {
          for await (const chunk of body) {
            hash.update(chunk);
            size += chunk.byteLength;
            yield chunk;
          }
        }, createWriteStream(partial));
        await rename(partial, target);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
      return { size, sha256: hash.digest('hex') };
    },
    async read(key, range) {
      const file = pathOf(key);
      if ((await stat(file).catch(() => null)) === null) return null;
      return createReadStream(file, range ? { start: range.start, end: range.end } : {});
    },
    async size(key) {
      return (await stat(pathOf(key)).catch(() => null))?.size ?? null;
    },
    async remove(key) {
      await rm(pathOf(key), { force: true });
    },
  };
}
