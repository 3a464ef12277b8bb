import {
  DomainError,
  deviceSnScope,
  forwardServerNameScope,
  mqttUsernameScope,
  type ErrorCode,
  type ForwardRoutes,
  type ForwardServerFields,
  type ForwardServerType,
} from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { outboundErrorClasses, type OutboundErrorClass } from '@iot/contracts/ports/outbound-http.ts';
import { loadState, newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { perItemFound } from '../shared/bulk.ts';
import { moveClaim, releaseClaims, withClaim } from '../shared/claims.ts';
import { setPassword, verifyPassword } from '../auth/credentials.ts';
import { productOf } from '../product/handlers.ts';
import {
  forwardRuleDecider,
  forwardRuleStream,
  forwardServerDecider,
  forwardServerStream,
  mqttAclDecider,
  mqttAclStream,
  mqttUserDecider,
  mqttUserStream,
  mqttUserSubject,
} from './decide.ts';
import { serverPassword, storeServerPassword } from './secrets.ts';

/** Loopback and "this host" as an IPv4 form or a name: where the platform's own listeners are. */
const isThisHost = (host: string) => /^(127\.\d+\.\d+\.\d+|0\.0\.0\.0|localhost\.?|\[?::1\]?)$/i.test(host);

/**
 * A target a tenant sets is checked before it is stored: one of the platform's own listeners would forward into
 * itself (LOCAL_PORT_IN_USE); an internal address as written is refused unless the operator allows its range. The
 * guard checks again at every call, after resolution.
 */
function checkTarget(ctx: RequestContext, target: { host: string; port: number; url: string }, field: 'ip' | 'url') {
  if (isThisHost(target.host) && (ctx.ports.forwarding?.localPorts ?? []).includes(target.port))
    throw new DomainError('LOCAL_PORT_IN_USE', { field: field === 'ip' ? 'port' : 'url' });
  if (ctx.ports.outbound?.refusesLiteral(target.url) ?? true) throw new DomainError('OUTBOUND_URL_REFUSED', { field });
}

/** An HTTP server's fields as the list shows them: its URL, with the host and port it names, TLS when https. */
const httpServerFields = (
  body: { name: string; url: string; remark: string | null; batchSize: number },
  host: string,
  port: number,
): ForwardServerFields => ({
  type: 'http',
  name: body.name,
  ip: host,
  port,
  url: body.url,
  username: null,
  clientId: null,
  tls: body.url.startsWith('https:'),
  remark: body.remark,
  hasPassword: false,
  batchSize: body.batchSize,
});

/** An HTTP URL's host and port (the scheme's default when it names none): what the server list shows as IP and port. */
function hostAndPort(url: string) {
  const u = new URL(url);
  return { host: u.hostname, port: u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80 };
}

/** The server's state, when it is the caller's and of this type. */
async function serverOf(ctx: RequestContext, id: string, type?: ForwardServerType) {
  const { state } = await loadState(ctx.ports.store, forwardServerDecider, forwardServerStream(callerOf(ctx).tenantId, id));
  if (!state.exists || state.deleted || !state.fields || (type && state.fields.type !== type)) throw new DomainError('NOT_FOUND');
  return state.fields;
}

const failureClass = (error: unknown): OutboundErrorClass => {
  const errorClass = error && typeof error === 'object' && 'errorClass' in error ? error.errorClass : null;
  return (outboundErrorClasses as readonly unknown[]).includes(errorClass) ? (errorClass as OutboundErrorClass) : 'SEND_FAILED';
};
const statusClass = (status: number): OutboundErrorClass =>
  status >= 500 ? 'HTTP_STATUS_5XX' : status >= 400 ? 'HTTP_STATUS_4XX' : 'HTTP_STATUS_3XX';

async function timed(attempt: () => Promise<OutboundErrorClass | null>) {
  const started = Date.now();
  let error: OutboundErrorClass | null;
  try {
    error = await attempt();
  } catch (failure) {
    error = failureClass(failure);
  }
  return { ok: error === null, error, ms: Date.now() - started };
}

/** What an MQTT target is connected with, its password read from beside the log. */
export async function mqttTargetOf(ctx: RequestContext, id: string, server: ForwardServerFields) {
  const password = server.hasPassword ? await serverPassword(ctx.ports.db, callerOf(ctx).tenantId, id) : null;
  return {
    key: `${id}:${JSON.stringify(server)}`,
    host: server.ip,
    port: server.port,
    tls: server.tls,
    username: server.username,
    password,
    clientId: server.clientId,
  };
}

/** A new server under its name, unique per tenant and type (`taken`: the error when another server holds the name). */
async function createServer(ctx: RequestContext, fields: ForwardServerFields, taken: ErrorCode): Promise<string> {
  const { tenantId } = callerOf(ctx);
  const id = newAggregateId(commandContextOf(ctx));
  await withClaim(ctx.ports.db, { scope: forwardServerNameScope(tenantId, fields.type), key: fields.name, owner: id }, taken, () =>
    runCommand(ctx, forwardServerDecider, forwardServerStream(tenantId, id), { type: 'Create', id, fields }),
  );
  return id;
}

/** A server's new fields, its name claim moved with them (`taken`: the error when another server holds the name). */
async function updateServer(ctx: RequestContext, id: string, fields: ForwardServerFields, taken: ErrorCode): Promise<void> {
  const { tenantId } = callerOf(ctx);
  await moveClaim(ctx.ports.db, { scope: forwardServerNameScope(tenantId, fields.type), key: fields.name, owner: id }, taken, () =>
    runCommand(ctx, forwardServerDecider, forwardServerStream(tenantId, id), { type: 'Update', id, fields }),
  );
}

async function deleteServer(ctx: RequestContext, id: string, type: ForwardServerType) {
  const { tenantId } = callerOf(ctx);
  await serverOf(ctx, id, type);
  if (await ctx.ports.lookups.forwardServerInUse(tenantId, id)) throw new DomainError('SERVER_IN_USE');
  await runCommand(ctx, forwardServerDecider, forwardServerStream(tenantId, id), { type: 'Delete', id });
  await releaseClaims(ctx.ports.db, forwardServerNameScope(tenantId, type), id);
  await storeServerPassword(ctx.ports.db, tenantId, id, null);
}

/** A rule sends to a server of the caller, messages of products of theirs, and of devices of theirs. */
async function checkRule(ctx: RequestContext, rule: { serverId: string; productIds: string[]; deviceIds: string[] }) {
  await serverOf(ctx, rule.serverId).catch(() => {
    throw new DomainError('NOT_FOUND', { field: 'serverId' });
  });
  for (const productId of new Set(rule.productIds)) await productOf(ctx, productId);
  const deviceIds = [...new Set(rule.deviceIds)];
  if ((await ctx.ports.lookups.devicesOfTenant(callerOf(ctx).tenantId, deviceIds)).length !== deviceIds.length)
    throw new DomainError('NOT_FOUND', { field: 'deviceIds' });
}

async function mqttUserOf(ctx: RequestContext, id: string, field?: string) {
  const { state } = await loadState(ctx.ports.store, mqttUserDecider, mqttUserStream(callerOf(ctx).tenantId, id));
  if (!state.exists || state.deleted || !state.fields) throw new DomainError('NOT_FOUND', field ? { field } : undefined);
  return state.fields;
}

type ForwardWrites = Exclude<
  keyof ForwardRoutes,
  'forwardServer.listMqtt' | 'forwardServer.listHttp' | 'forwardConfig.list' | 'forwardConfig.dead' | 'mqttUser.list' | 'mqttAcl.list'
>;

/** Forwarding servers and rules, the dead letters' retry, MQTT users and their topic rules. */
export const forwardHandlers: Pick<Handlers<ForwardRoutes>, ForwardWrites> = {
  async 'forwardServer.createMqtt'({ body }, ctx) {
    const { password, ...rest } = body;
    checkTarget(ctx, { host: rest.ip, port: rest.port, url: `mqtt://${rest.ip}:${rest.port}` }, 'ip');
    const id = await createServer(ctx, { type: 'mqtt', ...rest, url: null, hasPassword: Boolean(password) }, 'MQTT_ADD_FAILED');
    await storeServerPassword(ctx.ports.db, callerOf(ctx).tenantId, id, password || undefined);
    return { id };
  },
  async 'forwardServer.updateMqtt'({ body }, ctx) {
    const { id, password, ...rest } = body;
    checkTarget(ctx, { host: rest.ip, port: rest.port, url: `mqtt://${rest.ip}:${rest.port}` }, 'ip');
    const before = await serverOf(ctx, id, 'mqtt');
    const hasPassword = password === undefined ? before.hasPassword : password !== null;
    await updateServer(ctx, id, { type: 'mqtt', ...rest, url: null, hasPassword }, 'MQTT_EDIT_FAILED');
    await storeServerPassword(ctx.ports.db, callerOf(ctx).tenantId, id, password);
    return { id };
  },
  async 'forwardServer.deleteMqtt'({ query }, ctx) {
    return perItemFound(query.ids, (id) => deleteServer(ctx, id, 'mqtt'), ctx.lang);
  },
  async 'forwardServer.testMqtt'({ body }, ctx) {
    const server = await serverOf(ctx, body.id, 'mqtt');
    const target = await mqttTargetOf(ctx, body.id, server);
    return timed(async () => {
      const forwarding = ctx.ports.forwarding;
      if (!forwarding) return 'SEND_FAILED';
      await forwarding.mqtt.test(target);
      return null;
    });
  },

  async 'forwardServer.createHttp'({ body }, ctx) {
    const { host, port } = hostAndPort(body.url);
    checkTarget(ctx, { host, port, url: body.url }, 'url');
    return { id: await createServer(ctx, httpServerFields(body, host, port), 'SERVER_NAME_TAKEN') };
  },
  async 'forwardServer.updateHttp'({ body }, ctx) {
    const { host, port } = hostAndPort(body.url);
    checkTarget(ctx, { host, port, url: body.url }, 'url');
    await serverOf(ctx, body.id, 'http');
    await updateServer(ctx, body.id, httpServerFields(body, host, port), 'SERVER_NAME_TAKEN');
    return { id: body.id };
  },
  async 'forwardServer.deleteHttp'({ query }, ctx) {
    return perItemFound(query.ids, (id) => deleteServer(ctx, id, 'http'), ctx.lang);
  },
  async 'forwardServer.testHttp'({ body }, ctx) {
    const server = await serverOf(ctx, body.id, 'http');
    return timed(async () => {
      const outbound = ctx.ports.outbound;
      if (!outbound || !server.url) return 'SEND_FAILED';
      const answer = await outbound.request(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ test: true, ts: new Date().toISOString() }),
        timeoutMs: 10_000,
      });
      return answer.ok ? null : statusClass(answer.status);
    });
  },

  async 'forwardConfig.create'({ body }, ctx) {
    await checkRule(ctx, body);
    const id = newAggregateId(commandContextOf(ctx));
    await runCommand(ctx, forwardRuleDecider, forwardRuleStream(callerOf(ctx).tenantId, id), { type: 'Create', id, fields: body });
    return { id };
  },
  async 'forwardConfig.update'({ body }, ctx) {
    const { id, ...fields } = body;
    await checkRule(ctx, fields);
    await runCommand(ctx, forwardRuleDecider, forwardRuleStream(callerOf(ctx).tenantId, id), { type: 'Update', id, fields });
    return { id };
  },
  async 'forwardConfig.delete'({ query }, ctx) {
    const stream = (id: string) => forwardRuleStream(callerOf(ctx).tenantId, id);
    return perItemFound(query.ids, (id) => runCommand(ctx, forwardRuleDecider, stream(id), { type: 'Delete', id }), ctx.lang);
  },
  // The outbox is operational state beside the log, not events: sending a dead letter again changes only its row.
  async 'forwardConfig.retry'({ body }, ctx) {
    if (!ctx.ports.forwarding) throw new DomainError('INTERNAL');
    const updated = await ctx.ports.forwarding.retryDeadLetters(callerOf(ctx).tenantId, body.ids);
    if (updated === 0) throw new DomainError('NOT_FOUND');
    return { updated };
  },
  // Deleting a dead letter is, like its retry, a change of the outbox's own rows; only dead ones, so nothing in flight goes.
  async 'forwardConfig.deleteDead'({ query }, ctx) {
    const { tenantId } = callerOf(ctx);
    const result = await ctx.ports.db.query(`delete from forward_outbox where tenant_id = $1 and id::text = any($2) and status = 'dead'`, [
      tenantId,
      query.ids,
    ]);
    if (result.rowCount === 0) throw new DomainError('NOT_FOUND');
    return { deleted: result.rowCount };
  },

  async 'mqttUser.create'({ body }, ctx) {
    const { tenantId } = callerOf(ctx);
    const { password, ...fields } = body;
    const id = newAggregateId(commandContextOf(ctx));
    await withClaim(
      ctx.ports.db,
      { scope: mqttUsernameScope, key: fields.username.toLowerCase(), owner: id },
      'MQTT_ADD_FAILED',
      // A device logs in to the broker with its SN as username: a name is one or the other, platform-wide.
      () =>
        withClaim(ctx.ports.db, { scope: deviceSnScope, key: fields.username, owner: id }, 'MQTT_USERNAME_IS_DEVICE', async () => {
          await setPassword(ctx.ports.db, mqttUserSubject(id), tenantId, password);
          return runCommand(ctx, mqttUserDecider, mqttUserStream(tenantId, id), { type: 'Create', id, fields });
        }),
    );
    return { id };
  },
  async 'mqttUser.update'({ body }, ctx) {
    await runCommand(ctx, mqttUserDecider, mqttUserStream(callerOf(ctx).tenantId, body.id), {
      type: 'Update',
      id: body.id,
      remark: body.remark,
    });
    return { id: body.id };
  },
  async 'mqttUser.password'({ body }, ctx) {
    const { tenantId } = callerOf(ctx);
    await mqttUserOf(ctx, body.id);
    if (!(await verifyPassword(ctx.ports.db, mqttUserSubject(body.id), body.oldPassword))) throw new DomainError('PASSWORD_WRONG');
    await setPassword(ctx.ports.db, mqttUserSubject(body.id), tenantId, body.newPassword);
    await runCommand(ctx, mqttUserDecider, mqttUserStream(tenantId, body.id), { type: 'ChangePassword', id: body.id });
    return { id: body.id };
  },
  async 'mqttUser.delete'({ query }, ctx) {
    const { tenantId } = callerOf(ctx);
    return perItemFound(
      query.ids,
      async (id) => {
        await runCommand(ctx, mqttUserDecider, mqttUserStream(tenantId, id), { type: 'Delete', id });
        await releaseClaims(ctx.ports.db, mqttUsernameScope, id);
        await releaseClaims(ctx.ports.db, deviceSnScope, id);
        await ctx.ports.db.query('delete from auth_credentials where subject_id = $1', [mqttUserSubject(id)]);
      },
      ctx.lang,
    );
  },
  async 'mqttAcl.create'({ body }, ctx) {
    await mqttUserOf(ctx, body.mqttUserId, 'mqttUserId');
    const id = newAggregateId(commandContextOf(ctx));
    await runCommand(ctx, mqttAclDecider, mqttAclStream(callerOf(ctx).tenantId, id), { type: 'Create', id, fields: body });
    return { id };
  },
  async 'mqttAcl.update'({ body }, ctx) {
    const { id, ...fields } = body;
    await mqttUserOf(ctx, fields.mqttUserId, 'mqttUserId');
    await runCommand(ctx, mqttAclDecider, mqttAclStream(callerOf(ctx).tenantId, id), { type: 'Update', id, fields });
    return { id };
  },
  async 'mqttAcl.delete'({ query }, ctx) {
    const stream = (id: string) => mqttAclStream(callerOf(ctx).tenantId, id);
    return perItemFound(query.ids, (id) => runCommand(ctx, mqttAclDecider, stream(id), { type: 'Delete', id }), ctx.lang);
  },
};
