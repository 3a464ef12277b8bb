import type { AuthRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';

/** The session's caller as the web app's shell needs it: who, which tenant, which permissions, which home page. */
export const authQueryHandlers: Pick<Handlers<AuthRoutes>, 'auth.currentUser'> = {
  async 'auth.currentUser'(_input, ctx) {
    const caller = callerOf(ctx);
    const row = (
      await ctx.ports.db.query<{ email: string | null; home_page: string | null }>('select email, home_page from rm_users where id = $1', [
        caller.id,
      ])
    ).rows[0];
    return {
      id: caller.id,
      tenantId: caller.tenantId,
      username: caller.username,
      email: row?.email ?? null,
      isSystemAdmin: caller.isSystemAdmin,
      permissions: [...caller.permissions],
      homePage: row?.home_page ?? null,
    };
  },
};
