import type { DomainEvent } from '../event.ts';
import type { AppSharing, AppType } from '../identity/app.ts';
import type { EnabledStatus } from '../identity/common.ts';

/** What an app is made of, as its events carry it. */
export interface AppFields {
  type: AppType;
  name: string;
  scope: string[];
  sharing: AppSharing;
  remark: string | null;
}

/** What can happen to an app. The key is a public identifier; the secret never enters an event (its hash is in the credential store). */
export type AppEvent =
  | DomainEvent<'AppCreated', AppFields & { appId: string; appKey: string; ownerId: string }>
  | DomainEvent<'AppUpdated', AppFields & { appId: string; status: EnabledStatus }>
  | DomainEvent<'AppSecretRotated', { appId: string }>
  | DomainEvent<'AppDeleted', { appId: string }>;

export type AppEventType = AppEvent['type'];
