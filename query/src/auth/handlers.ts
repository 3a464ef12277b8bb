import type { AuthRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { userByIdAnyTenant } from '@iot/projections/user/read.ts';

/** The session's caller as the web app's shell needs it: who, which tenant, which permissions, which home page. */
export const authQueryHandlers: Pick<Handlers<AuthRoutes>, 'auth.currentUser'> = {
  async 'auth.currentUser'(_input, ctx) {
    const caller = callerOf(ctx);
    // By id alone: the system administrator acting in a tenant (development mode) is still a user of the platform's.
    const user = await userByIdAnyTenant(ctx.ports.db, caller.id);
    return {
      id: caller.id,
      tenantId: caller.tenantId,
      username: caller.username,
      email: user?.email ?? null,
      isSystemAdmin: caller.isSystemAdmin,
      permissions: [...caller.permissions],
      homePage: user?.homePage ?? null,
    };
  },
};
