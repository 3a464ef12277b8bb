import { z } from 'zod';
import { listQuery, page } from '../envelope.ts';
import { route } from '../http/route.ts';
import { perm } from '../identity/permissions.ts';
import { auditBody, registerBody, sendCodeBody, tenantListQuery, tenantRow } from './tenant.ts';

const tag = 'register';
const idBody = z.object({ id: z.string().min(1).max(64) }).strict();

/** Tenant registration (spec §1, §4, §5, §7 `register` paths) and its audit by the system administrator. */
export const tenantRoutes = {
  'tenant.sendCode': route({
    method: 'POST',
    path: '/api/auth/register/code',
    permission: 'public',
    tag,
    summary: 'Send a verification code to a phone or email',
    body: sendCodeBody,
    response: z.object({ resendAfter: z.number() }),
    reads: [],
    errors: ['CODE_TOO_SOON'],
  }),
  'tenant.register': route({
    method: 'POST',
    path: '/api/auth/register',
    permission: 'public',
    tag,
    summary: 'Register a tenant (under review until audited)',
    body: registerBody,
    response: z.object({ id: z.string(), status: z.literal('underReview') }),
    reads: ['tenants'],
    errors: ['TENANT_NAME_TAKEN', 'EMAIL_TAKEN', 'PHONE_TAKEN', 'CODE_INVALID'],
  }),
  'tenant.list': route({
    method: 'GET',
    path: '/api/auth/register',
    permission: perm.tenantList,
    tag,
    summary: 'Registrations and tenants',
    query: listQuery(['applyTime', 'auditTime', 'name', 'status'], tenantListQuery.shape),
    response: page(tenantRow),
    reads: ['tenants'],
  }),
  'tenant.approve': route({
    method: 'POST',
    path: '/api/auth/register/createUserByRegist',
    permission: perm.tenantAudit,
    tag,
    summary: 'Approve a registration: the onboarding workflow creates its administrator, roles and menus',
    body: auditBody,
    response: z.object({ id: z.string(), adminUserId: z.string() }),
    reads: ['workflow-tenant-onboarding', 'tenants', 'users', 'roles'],
    errors: ['REGISTRATION_NOT_PENDING', 'NOT_FOUND'],
  }),
  'tenant.reject': route({
    method: 'POST',
    path: '/api/auth/register/rejectRegist',
    permission: perm.tenantAudit,
    tag,
    summary: 'Reject a registration',
    body: auditBody,
    response: z.object({ id: z.string() }),
    reads: ['tenants'],
    errors: ['REGISTRATION_NOT_PENDING', 'NOT_FOUND'],
  }),
  'tenant.stop': route({
    method: 'POST',
    path: '/api/auth/tenant/stop',
    permission: perm.tenantAudit,
    tag: 'tenant',
    summary: 'Stop a tenant: its users and devices are refused',
    body: idBody,
    response: z.object({ id: z.string() }),
    reads: ['tenants'],
    errors: ['NOT_FOUND'],
  }),
  'tenant.start': route({
    method: 'POST',
    path: '/api/auth/tenant/start',
    permission: perm.tenantAudit,
    tag: 'tenant',
    summary: 'Start a stopped tenant',
    body: idBody,
    response: z.object({ id: z.string() }),
    reads: ['tenants'],
    errors: ['NOT_FOUND'],
  }),
};
export type TenantRoutes = typeof tenantRoutes;
