import type { DomainEvent } from '../event.ts';
import type { ScreenWidget } from './model.ts';

/** What can happen to a data big screen and its share links. Stream `screen-<tenant>.<id>`. */
export type ScreenEvent =
  | DomainEvent<'ScreenCreated', { screenId: string; name: string; widgets: ScreenWidget[] }>
  | DomainEvent<'ScreenRenamed', { screenId: string; name: string }>
  | DomainEvent<'ScreenLayoutSaved', { screenId: string; widgets: ScreenWidget[] }>
  | DomainEvent<'ScreenDeleted', { screenId: string }>
  /**
   * `tokenHash`: the SHA-256 (hex) of the link's random secret. The secret is answered once, to whoever shared the
   * screen, and kept nowhere: the event log cannot give a live link away. `stationId`: the group whose subtree the
   * sharer was narrowed to (spec §6), which every widget of the public page is narrowed to as well; null: the tenant.
   */
  | DomainEvent<'ScreenShared', { screenId: string; shareId: string; tokenHash: string; expiresAt: string; stationId: string | null }>
  | DomainEvent<'ScreenShareRevoked', { screenId: string; shareId: string }>;
export type ScreenEventType = ScreenEvent['type'];
