import { useSyncExternalStore } from 'react';
import type { CurrentUser } from '@iot/contracts';
import { session } from '../api/session.ts';

const listeners = new Set<() => void>();
// Read on first use, not on import: modules importing this one also run where there is no localStorage (node tests).
let current: CurrentUser | null | undefined;
// The user logged out on purpose: whatever still renders or answers 401 afterwards goes to login with no page to return to.
let endedByUser = false;

/** The logged-in user as React state: login, logout and refreshes notify every screen. */
export const sessionStore = {
  login(token: string, user: CurrentUser): void {
    endedByUser = false;
    session.save(token, user);
    current = user;
    listeners.forEach((l) => l());
  },
  update(user: CurrentUser): void {
    session.saveUser(user);
    current = user;
    listeners.forEach((l) => l());
  },
  clear(options: { byUser?: boolean } = {}): void {
    if (options.byUser) endedByUser = true;
    session.clear();
    current = null;
    listeners.forEach((l) => l());
  },
  /** Whether the last session ended by the user's own logout (then login remembers no page to return to). */
  endedByUser(): boolean {
    return endedByUser;
  },
};

export function useSession(): CurrentUser | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => (current ??= session.user()),
  );
}
