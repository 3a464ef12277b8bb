import type { FileStore } from '@iot/contracts/ports/files.ts';
import type { DeviceRef } from '../registry.ts';
import { fwChunkResponseTopic } from '../topics.ts';

/** The most a device may ask for in one chunk, and what an ask of 0 (its default) gets. */
const MAX_CHUNK = 256 * 1024;
const DEFAULT_CHUNK = 64 * 1024;

export interface FirmwareChunks {
  chunk(device: DeviceRef, clientId: string, requestId: string, chunk: number, size: number): Promise<void>;
}

/**
 * ThingsBoard's firmware download over MQTT: the client asks `v2/fw/request/{requestId}/chunk/{n}` with the chunk
 * size, and gets chunk n's bytes on `v2/fw/response/{requestId}/chunk/{n}` (empty past the end). The file is the one
 * the device's running rollout sends it (`fileOf`), read by range from the file store; another device's is never served.
 */
export function createFirmwareChunks(options: {
  store: FileStore;
  fileOf(device: DeviceRef): Promise<{ storageKey: string; size: number } | null>;
  publishTo(clientId: string, topic: string, payload: Uint8Array): Promise<boolean>;
}): FirmwareChunks {
  return {
    async chunk(device, clientId, requestId, chunk, size) {
      const file = await options.fileOf(device);
      const length = Math.min(size || DEFAULT_CHUNK, MAX_CHUNK);
      const start = chunk * length;
      let bytes: Uint8Array = Buffer.alloc(0);
      if (file && start < file.size) {
        const parts: Uint8Array[] = [];
        const body = await options.store.read(file.storageKey, { start, end: Math.min(start + length, file.size) - 1 });
        for await (const part of body ?? []) parts.push(part);
        // A range served from memory comes as one part: sent as it is, not copied.
        bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
      }
      await options.publishTo(clientId, fwChunkResponseTopic(requestId, chunk), bytes);
    },
  };
}
