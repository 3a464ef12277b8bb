/**
 * Where the bytes of uploaded files live (ARCHITECTURE.md ports): local disk under DATA_DIR by default, an
 * S3-compatible object store at scale (S3_URL). Keys are opaque to callers; the files capability makes them and
 * keeps them per tenant (`<tenantId>/<fileId>`), so a key from one tenant is never read for another.
 */
export interface FileStore {
  /** Stores the whole object from a stream; answers its size and SHA-256 (hex), computed while it streamed. */
  put(key: string, body: AsyncIterable<Uint8Array>): Promise<{ size: number; sha256: string }>;
  /** The object's bytes, or the inclusive byte range [start, end] of them (HTTP Range); null when there is none. */
  read(key: string, range?: { start: number; end: number }): Promise<AsyncIterable<Uint8Array> | null>;
  /** The object's size in bytes, or null when there is none. */
  size(key: string): Promise<number | null>;
  /** Removes the object; removing one that is not there is not an error. */
  remove(key: string): Promise<void>;
}
