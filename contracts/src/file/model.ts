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

/**
 * What an upload says of its file (tus `Upload-Metadata`, spec §3 Uploaded file): checked before a byte is stored.
 * A version is asked of the files a rollout sends; an extension type only of upgrade and patch files.
 */
export const fileUploadFields = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(128)
      .refine((v) => !/[/\\\0]/.test(v), 'name: no path separators'),
    fileType: fileTypeSchema,
    extensionType: fileExtensionTypeSchema.nullish().transform((v) => v ?? null),
    version: z
      .string()
      .trim()
      .max(64)
      .nullish()
      .transform((v) => (v ? v : null)),
    declaration: z
      .string()
      .trim()
      .max(256)
      .nullish()
      .transform((v) => (v ? v : null)),
  })
  .strict();
export type FileUploadFields = z.output<typeof fileUploadFields>;

/** The file types the authority service's upload takes (spec §7 `file/upload`): attachments any logged-in user sends. */
export const authorityFileTypes = ['common', 'logo'] as const satisfies readonly FileType[];
/** What an authority-service upload says of its file: a common file unless it says logo; no version or extension type. */
export const authorityFileUploadFields = fileUploadFields.extend({
  fileType: z.enum(authorityFileTypes).default('common'),
  extensionType: z
    .null()
    .optional()
    .transform(() => null),
  version: z
    .null()
    .optional()
    .transform(() => null),
});

export const fileRow = z.object({
  id: z.string(),
  name: z.string(),
  size: z.number().int(),
  /** The size as screens show it: MB with 2 decimals. */
  sizeMb: z.string(),
  sha256: z.string(),
  fileType: fileTypeSchema,
  extensionType: fileExtensionTypeSchema.nullable(),
  version: z.string().nullable(),
  declaration: z.string().nullable(),
  uploaderId: z.string(),
  uploader: z.string(),
  createTime: z.string(),
});
export type FileRow = z.infer<typeof fileRow>;
export const fileSortable = ['createTime', 'name', 'size'] as const;
export const fileFilters = {
  name: z.string().trim().max(128).optional(),
  fileType: fileTypeSchema.optional(),
  extensionType: fileExtensionTypeSchema.optional(),
  uploader: z.string().trim().max(64).optional(),
};
/** How much of the tenant's quota is used: what the screen shows above the list. */
export const fileUsage = z.object({ usedBytes: z.number().int(), quotaBytes: z.number().int(), maxFileBytes: z.number().int() });

/** The platform's limits on uploads (FILE_QUOTA_MB per tenant, FILE_MAX_MB per file), set by the operator. */
export interface FileLimits {
  quotaBytes: number;
  maxFileBytes: number;
}
