import type { Principal } from '@iot/contracts/http/principal.ts';
import type { EventStore, StoredEvent, Subscription } from '@iot/contracts/ports/event-store.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { hashToken } from '@iot/command/auth/sessions.ts';
import { resolvePrincipal } from './auth.ts';
import type { ReadModelWatch } from './route-table.ts';

/** Categories whose events can change who a caller is or what they may do. */
const CATEGORIES = ['user', 'role', 'menu', 'tenant', 'app'];
const MAX_ENTRIES = 50_000;

type Cached = Omit<Principal, 'tokenHash' | 'stationId'>;

/**
 * Callers resolved once and kept in memory. Each request still checks its session row (one primary-key
 * read), so a logout, a stop or a password reset, which revoke the row, refuse the very next request in
 * every process; what is cached is the rest (user, tenant, permissions), dropped by the events that change
 * it as they arrive through the event log, whichever process appended them.
 */
export function createPrincipalCache(db: Sql, store: EventStore, watch: ReadModelWatch) {
  const bySubject = new Map<string, Cached>();
  /** Bumped by every invalidation: a caller resolved across one is not kept (it may be stale). */
  let generation = 0;
  const key = (kind: string, id: string) => `${kind}:${id}`;
  const dropTenant = (tenantId: string) => {
    for (const [k, p] of bySubject) if (p.tenantId === tenantId) bySubject.delete(k);
  };

  function invalidate(event: StoredEvent) {
    generation += 1;
    const data = event.data as { userId?: string; appId?: string; tenantId?: string };
    const category = event.streamName.slice(0, event.streamName.indexOf('-'));
    if (category === 'user' && data.userId) bySubject.delete(key('user', data.userId));
    else if (category === 'app' && data.appId) bySubject.delete(key('app', data.appId));
    else if (category === 'tenant') dropTenant(data.tenantId ?? event.metadata.tenantId);
    // A role or a menu entry changes the permissions of everyone holding it.
    else if (category === 'role') dropTenant(event.metadata.tenantId);
    else bySubject.clear();
  }

  let subscription: Subscription | null = null;
  return {
    async start(): Promise<void> {
      const after = await store.headPosition();
      subscription = store.subscribe({
        after,
        categories: CATEGORIES,
        onEvents: async (events) => {
          events.forEach(invalidate);
          // Once more when the read models hold these events, so nothing older is re-read and kept meanwhile.
          const last = events.at(-1)!.position;
          void watch.waitFor(['users', 'roles', 'menus', 'tenants', 'apps'], last, 60_000).finally(() => events.forEach(invalidate));
        },
        onError: () => bySubject.clear(),
      });
    },
    async stop(): Promise<void> {
      await subscription?.stop();
    },
    async resolve(token: string): Promise<Principal | null> {
      const tokenHash = hashToken(token);
      const session = (
        await db.query<{ subject_kind: string; subject_id: string }>(
          'select subject_kind, subject_id from auth_sessions where token_hash = $1 and revoked_at is null and expires_at > now()',
          [tokenHash],
          { prepare: 'session_live' },
        )
      ).rows[0];
      if (!session) return null;
      const cached = bySubject.get(key(session.subject_kind, session.subject_id));
      if (cached) return { ...cached, tokenHash, stationId: null };
      const before = generation;
      const principal = await resolvePrincipal(db, token);
      if (principal && generation === before) {
        if (bySubject.size >= MAX_ENTRIES) bySubject.clear();
        const { tokenHash: _hash, stationId: _station, ...rest } = principal;
        bySubject.set(key(principal.kind, principal.id), rest);
      }
      return principal;
    },
    /** For tests and metrics: how many callers are held. */
    size: () => bySubject.size,
  };
}
export type PrincipalCache = ReturnType<typeof createPrincipalCache>;
