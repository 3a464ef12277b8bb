import type { DomainEvent } from '../event.ts';

/**
 * What can happen to a tenant's system settings (spec §2: system name and logo). The logo's bytes live in
 * a blob table keyed by their SHA-256; its dimensions come from its IHDR chunk (absent from events older than that check).
 */
export type SettingsEvent =
  | DomainEvent<'SystemNameChanged', { systemName: string }>
  | DomainEvent<'SystemLogoChanged', { sha256: string; bytes: number; width?: number; height?: number }>;

export type SettingsEventType = SettingsEvent['type'];
