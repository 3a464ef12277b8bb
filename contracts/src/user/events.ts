import type { DomainEvent } from '../event.ts';
import type { Sex } from '../identity/user.ts';

/** What a user is made of, as its events carry it. */
export interface UserProfile {
  username: string;
  email: string | null;
  phone: string | null;
  sex: Sex;
  position: string | null;
  groupId: string | null;
  roleIds: string[];
  description: string | null;
  homePage: string | null;
}

export type UserEvent =
  | DomainEvent<'UserCreated', UserProfile & { userId: string; isSystemAdmin: boolean; isTenantAdmin: boolean }>
  | DomainEvent<'UserUpdated', UserProfile & { userId: string }>
  | DomainEvent<'UserStopped', { userId: string }>
  | DomainEvent<'UserEnabled', { userId: string }>
  | DomainEvent<'UserDeleted', { userId: string }>
  /** The password itself never enters an event: its hash lives in the credential store. */
  | DomainEvent<'UserPasswordChanged', { userId: string; byAdministrator: boolean }>;

export type UserEventType = UserEvent['type'];
