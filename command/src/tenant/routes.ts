import { z } from 'zod';
import {
  auditBody,
  DomainError,
  envelope,
  page,
  pageQuery,
  registerBody,
  sendCodeBody,
  SYSTEM_TENANT,
  tenantListQuery,
  tenantRow,
  type TenantRow,
} from '@iot/contracts';
import type { RoutesPlugin } from '@iot/infra/http/app.ts';
import { ok } from '@iot/infra/http/envelope.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { handleCommand, newAggregateId } from '../handler.ts';
import { anonymousContextOf, contextOf } from '../context.ts';
import { moveCredential, setPassword } from '../auth/credentials.ts';
import { userDecider, userStream } from '../user/decide.ts';
import { claimUsername, releaseUsernames, transferUsernames } from '../user/usernames.ts';
import { provisionTenant } from '../role/builtin.ts';
import { codesSchema, consumeCode, issueCode } from './codes.ts';
import { tenantDecider, tenantStream } from './decide.ts';

const pendingCredential = (tenantId: string) => `registration:${tenantId}`;

const sortable: Record<string, string> = { applyTime: 'apply_time', auditTime: 'audit_time', name: 'name', status: 'status' };

/** A tenant's name is its administrator's username: free when nobody claims it and no tenant has it. */
async function nameIsFree(db: Sql, name: string): Promise<boolean> {
  const taken = await db.query(
    `select 1 from rm_tenants where lower(name) = lower($1) and status <> 'rejected'
     union all select 1 from username_claims where username = lower($1) limit 1`,
    [name],
  );
  return taken.rowCount === 0;
}

const toRow = (r: Record<string, unknown>): TenantRow => ({
  id: r.id as string,
  name: r.name as string,
  contactName: r.contact_name as string,
  company: r.company as string,
  phone: (r.phone as string | null) ?? null,
  email: (r.email as string | null) ?? null,
  status: r.status as TenantRow['status'],
  registerMethod: r.register_method as TenantRow['registerMethod'],
  applyTime: (r.apply_time as Date).toISOString(),
  auditTime: r.audit_time ? (r.audit_time as Date).toISOString() : null,
  rejectReason: (r.reject_reason as string | null) ?? null,
});

/** Tenant registration (spec §1, §4, §5) and its audit by the system administrator. */
export const tenantRoutes: RoutesPlugin = async (app, { db, store, notifier }) => {
  await db.query(codesSchema);

  app.post(
    '/api/auth/register/code',
    {
      config: { permission: 'public' },
      schema: { tags: ['register'], body: sendCodeBody, response: { 200: envelope(z.object({ resendAfter: z.number() })) } },
    },
    async (request) => {
      const { method, target } = request.body;
      const { code, resendAfter } = await issueCode(db, target);
      await notifier.send({
        tenantId: SYSTEM_TENANT,
        channel: method === 'phone' ? 'sms' : 'email',
        to: target,
        subject: 'Verification code / 验证码',
        body: `Your verification code is ${code}. 您的验证码是 ${code}。`,
      });
      return ok({ resendAfter });
    },
  );

  app.post(
    '/api/auth/register',
    {
      config: { permission: 'public' },
      schema: {
        tags: ['register'],
        body: registerBody,
        response: { 200: envelope(z.object({ id: z.string(), status: z.literal('underReview') })) },
      },
    },
    async (request) => {
      const body = request.body;
      if (!(await nameIsFree(db, body.tenantName))) throw new DomainError('TENANT_NAME_TAKEN');
      const target = body.method === 'phone' ? body.phone! : body.email!;
      await consumeCode(db, target, body.code);
      const tenantId = newAggregateId({ tenantId: SYSTEM_TENANT, idempotencyKey: anonymousContextOf(request).idempotencyKey });
      await claimUsername(db, body.tenantName, pendingCredential(tenantId), 'TENANT_NAME_TAKEN');
      await handleCommand(
        store,
        tenantDecider,
        tenantStream(tenantId),
        {
          type: 'RegisterTenant',
          tenantId,
          name: body.tenantName,
          contactName: body.contactName,
          company: body.company,
          method: body.method,
          phone: body.phone ?? null,
          email: body.email ?? null,
        },
        anonymousContextOf(request, tenantId),
      );
      await setPassword(db, pendingCredential(tenantId), tenantId, body.password);
      return ok({ id: tenantId, status: 'underReview' as const });
    },
  );

  app.get(
    '/api/auth/register',
    {
      config: { permission: 'platform:tenant:list' },
      schema: { tags: ['register'], querystring: pageQuery.extend(tenantListQuery.shape), response: { 200: envelope(page(tenantRow)) } },
    },
    async (request) => {
      const q = request.query;
      const where: string[] = [];
      const params: unknown[] = [];
      if (q.status) where.push(`status = $${params.push(q.status)}`);
      if (q.name) where.push(`(name ilike $${params.push(`%${q.name}%`)} or contact_name ilike $${params.length})`);
      const clause = where.length ? `where ${where.join(' and ')}` : '';
      const order = `${sortable[q.sort ?? ''] ?? 'apply_time'} ${q.order}`;
      const total = (await db.query<{ n: number }>(`select count(*)::int as n from rm_tenants ${clause}`, params)).rows[0]!.n;
      const rows = await db.query(
        `select * from rm_tenants ${clause} order by ${order}, id limit $${params.length + 1} offset $${params.length + 2}`,
        [...params, q.pageSize, (q.page - 1) * q.pageSize],
      );
      return ok({ rows: rows.rows.map(toRow), total, page: q.page, pageSize: q.pageSize });
    },
  );

  app.post(
    '/api/auth/register/createUserByRegist',
    {
      config: { permission: 'platform:tenant:audit' },
      schema: { tags: ['register'], body: auditBody, response: { 200: envelope(z.object({ id: z.string(), adminUserId: z.string() })) } },
    },
    async (request) => {
      const { id } = request.body;
      const context = contextOf(request);
      const adminUserId = newAggregateId({ tenantId: id, idempotencyKey: 'tenant-admin' });
      const result = await handleCommand(
        store,
        tenantDecider,
        tenantStream(id),
        { type: 'ApproveTenant', tenantId: id, adminUserId },
        context,
      );
      const tenant = result.state;
      await handleCommand(
        store,
        userDecider,
        userStream(id, adminUserId),
        {
          type: 'CreateUser',
          userId: adminUserId,
          username: tenant.name!,
          email: tenant.email,
          phone: tenant.phone,
          sex: 'unknown',
          position: null,
          groupId: null,
          roleIds: [],
          description: null,
          homePage: null,
          isSystemAdmin: false,
          isTenantAdmin: true,
        },
        { ...context, tenantId: id, causationId: result.events[0]?.id ?? null, idempotencyKey: `approve:${id}` },
      );
      await moveCredential(db, pendingCredential(id), adminUserId, id);
      await transferUsernames(db, pendingCredential(id), adminUserId);
      await provisionTenant(store, id, adminUserId, { actor: context.actor, correlationId: context.correlationId, ip: context.ip });
      await notifyResult(tenant, true, null);
      return ok({ id, adminUserId });
    },
  );

  app.post(
    '/api/auth/register/rejectRegist',
    {
      config: { permission: 'platform:tenant:audit' },
      schema: { tags: ['register'], body: auditBody, response: { 200: envelope(z.object({ id: z.string() })) } },
    },
    async (request) => {
      const { id, reason } = request.body;
      const result = await handleCommand(
        store,
        tenantDecider,
        tenantStream(id),
        { type: 'RejectTenant', tenantId: id, reason: reason ?? null },
        contextOf(request),
      );
      await db.query('delete from auth_credentials where subject_id = $1', [pendingCredential(id)]);
      await releaseUsernames(db, pendingCredential(id));
      await notifyResult(result.state, false, reason ?? null);
      return ok({ id });
    },
  );

  for (const action of ['stop', 'start'] as const) {
    app.post(
      `/api/auth/tenant/${action}`,
      {
        config: { permission: 'platform:tenant:audit' },
        schema: {
          tags: ['tenant'],
          body: z.object({ id: z.string().min(1).max(64) }).strict(),
          response: { 200: envelope(z.object({ id: z.string() })) },
        },
      },
      async (request) => {
        const { id } = request.body;
        await handleCommand(
          store,
          tenantDecider,
          tenantStream(id),
          { type: action === 'stop' ? 'StopTenant' : 'StartTenant', tenantId: id },
          contextOf(request),
        );
        return ok({ id });
      },
    );
  }

  /** The audit result goes back the way the visitor registered: SMS for phone, email for email. */
  async function notifyResult(
    tenant: { name: string | null; method: string | null; phone: string | null; email: string | null },
    approved: boolean,
    reason: string | null,
  ) {
    const to = tenant.method === 'phone' ? tenant.phone : tenant.email;
    if (!to) return;
    await notifier.send({
      tenantId: SYSTEM_TENANT,
      channel: tenant.method === 'phone' ? 'sms' : 'email',
      to,
      subject: approved ? 'Registration approved / 注册审核通过' : 'Registration rejected / 注册审核未通过',
      body: approved
        ? `Tenant ${tenant.name} is approved: log in as ${tenant.name} with your password. 租户 ${tenant.name} 已审核通过。`
        : `Tenant ${tenant.name} was not approved${reason ? `: ${reason}` : ''}. 租户 ${tenant.name} 审核未通过${reason ? `：${reason}` : ''}。`,
    });
  }
};
