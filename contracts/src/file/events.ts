import type { DomainEvent } from '../event.ts';
import type { FileUploadFields } from './model.ts';

/**
 * An uploaded file: stream `file-<tenant>.<id>`. Its bytes live in the FileStore under `storageKey`; the event
 * records what they are (size and SHA-256 of the whole, computed as they were stored) and who sent them.
 */
export type FileEvent =
  | DomainEvent<
      'FileUploaded',
      FileUploadFields & { fileId: string; size: number; sha256: string; storageKey: string; uploaderId: string; uploader: string }
    >
  | DomainEvent<'FileDeleted', { fileId: string; storageKey: string }>;
export type FileEventType = FileEvent['type'];
