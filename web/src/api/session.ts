import type { CurrentUser } from '@iot/contracts';

const TOKEN_KEY = 'token';
const USER_KEY = 'user';
/** Where the current group (spec §6 `stationId`) is kept: it belongs to the login and goes with it. */
export const STATION_KEY = 'stationId';

/** The login token, kept so it can travel as the `Authentication` header (spec §7); the server also sets the cookie. */
export const session = {
  token: (): string | null => localStorage.getItem(TOKEN_KEY),
  user: (): CurrentUser | null => {
    const raw = localStorage.getItem(USER_KEY);
    if (!raw) return null;
    try {
      return JSON.parse(raw) as CurrentUser;
    } catch {
      return null;
    }
  },
  save(token: string, user: CurrentUser): void {
    localStorage.setItem(TOKEN_KEY, token);
    localStorage.setItem(USER_KEY, JSON.stringify(user));
  },
  saveUser(user: CurrentUser): void {
    localStorage.setItem(USER_KEY, JSON.stringify(user));
  },
  clear(): void {
    localStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(USER_KEY);
    localStorage.removeItem(STATION_KEY);
  },
};

/** A user may do `permission` when they hold it or every permission ('*'). */
export function can(user: CurrentUser | null, permission: string | undefined): boolean {
  if (!permission) return true;
  if (!user) return false;
  if (permission.startsWith('platform:') && !user.isSystemAdmin) return false;
  return user.permissions.includes('*') || user.permissions.includes(permission);
}
