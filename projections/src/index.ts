import type { Projection } from './projection.ts';
import { tenantsProjection } from './tenant/tenants.ts';
import { usersProjection } from './user/users.ts';

export * from './projection.ts';
export * from './runner.ts';

/** Every read model the platform keeps, by name (`npm run projections -- rebuild NAME`). */
export const projections: Projection[] = [tenantsProjection, usersProjection];
