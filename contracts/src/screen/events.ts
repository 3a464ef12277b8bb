import type { DomainEvent } from '../event.ts';
import type { ScreenWidget } from './model.ts';

/** What can happen to a data big screen and its share links. Stream `screen-<tenant>.<id>`. */
export type ScreenEvent =
  | DomainEvent<'ScreenCreated', { screenId: string; name: string; widgets: ScreenWidget[] }>
  | DomainEvent<'ScreenRenamed', { screenId: string; name: string }>
  | DomainEvent<'ScreenLayoutSaved', { screenId: string; widgets: ScreenWidget[] }>
  | DomainEvent<'ScreenDeleted', { screenId: string }>
  /** `key`: the random HMAC key this link's token is signed with (base64url), so a link outlives restarts and works in every process. */
  | DomainEvent<'ScreenShared', { screenId: string; shareId: string; key: string; expiresAt: string }>
  | DomainEvent<'ScreenShareRevoked', { screenId: string; shareId: string }>;
export type ScreenEventType = ScreenEvent['type'];
