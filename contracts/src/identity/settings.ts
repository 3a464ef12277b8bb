import { z } from 'zod';

export const systemSettings = z.object({
  systemName: z.string(),
  /** Version of the logo (its SHA-256), null when the default logo is used. */
  logo: z.string().nullable(),
  updatedAt: z.string().nullable(),
});
export type SystemSettings = z.infer<typeof systemSettings>;
export const settingsBody = z.object({ systemName: z.string().trim().min(1).max(64) }).strict();
export const DEFAULT_SYSTEM_NAME = 'Device cloud';
/** The PNG signature: the first eight bytes of every PNG file. */
export const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] as const;
