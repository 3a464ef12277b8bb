import { z } from 'zod';
import { fileTypes } from '../constants.ts';

/** What an uploaded file is for (spec §9 `fileTypes`): upgrade, configuration and patch files are what OTA rollouts send. */
export type FileType = (typeof fileTypes)[number];

/** How the device applies the file (spec §9 extension types). */
export const fileExtensionTypes = ['CLI', 'OSDT'] as const;
export type FileExtensionType = (typeof fileExtensionTypes)[number];

/** The file types an OTA or configuration rollout may send (issue 21). */
export const rolloutFileTypes = ['upgrade', 'patch', 'configuration'] as const satisfies readonly FileType[];

export const fileTypeSchema = z.enum(fileTypes);
export const fileExtensionTypeSchema = z.enum(fileExtensionTypes);

/**
 * An uploaded file as other capabilities see it (OTA rollouts, product test upgrade packages): its bytes are read
 * through the FileStore port by `storageKey`; the tenant owns it and nobody else is ever served it.
 */
export interface StoredFile {
  id: string;
  tenantId: string;
  name: string;
  /** Bytes. Shown as MB with 2 decimals (spec §9). */
  size: number;
  /** SHA-256 of the content, hex, computed while the upload streamed in. */
  sha256: string;
  fileType: FileType;
  extensionType: FileExtensionType | null;
  /** The firmware or configuration version the file carries, when it has one (upgrade, patch, configuration). */
  version: string | null;
  storageKey: string;
}

/** Size as the screens show it (spec §9): MB with 2 decimals, bytes / 1024². */
export function sizeInMb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(2);
}
