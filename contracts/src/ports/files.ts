import type { OtaTaskFile } from '../ota/events.ts';

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

/**
 * The file a rollout sends a device, asked at every HTTP range and MQTT chunk of its download: kept in memory, and
 * refused from the moment this process sees the device's part end, the task stop or the file go.
 */
export interface OtaFileLookup {
  /** The file task `taskId` sends the device while its part runs (its signed link's grant); null once it ended. */
  forTask(tenantId: string, taskId: string, deviceId: string): Promise<OtaTaskFile | null>;
  /** The file the device's newest running rollout sends it (ThingsBoard's chunks name no task); null when none. */
  ofDevice(tenantId: string, deviceId: string): Promise<OtaTaskFile | null>;
}
