import { randomUUID } from 'node:crypto';
import { DomainError, activeAlarmScope, isIncomplete, type AlarmRaisedData, type AlarmRoutes, type AlarmRuleFields } from '@iot/contracts';
import { callerOf, type Handlers, type Ports, type RequestContext } from '@iot/contracts/http/handler.ts';
import type { CommandDispatchers, DispatchMetadata } from '@iot/contracts/ports/dispatch.ts';
import { handleCommand, newAggregateId, type CommandContext } from '../handler.ts';
import { perItemFound } from '../shared/bulk.ts';
import { productOf } from '../product/handlers.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { claim, releaseClaims } from '../shared/claims.ts';
import { alarmDecider, alarmStream, type AlarmCommand } from './decide.ts';
import { alarmRuleDecider, alarmRuleStream } from './rule.ts';
import { cameraOf } from '../video/handlers.ts';

/** A rule names a property (or, in mode `event`, an event) of its product's thing model, and a device of that product. */
async function checkRule(ctx: RequestContext, rule: AlarmRuleFields) {
  const product = await productOf(ctx, rule.productId);
  const fn = product.functions.find((f) => f.identifier === rule.variable);
  const wanted = rule.mode === 'event' ? 'event' : 'property';
  if (!fn || fn.type !== wanted) throw new DomainError('NOT_A_PROPERTY', { field: 'variable' });
  if (rule.deviceId) {
    if (!(await ctx.ports.lookups.deviceIsOfProduct(callerOf(ctx).tenantId, rule.deviceId, rule.productId)))
      throw new DomainError('NOT_FOUND', { field: 'deviceId' });
  }
  if (rule.cameraId) {
    try {
      await cameraOf(ctx, rule.cameraId);
    } catch (error) {
      throw error instanceof DomainError ? new DomainError('NOT_FOUND', { field: 'cameraId' }) : error;
    }
  }
}

const alarmCommand = (ctx: RequestContext, alarmId: string, command: AlarmCommand) =>
  runCommand(ctx, alarmDecider, alarmStream(callerOf(ctx).tenantId, alarmId), command);

/** The key of the claim that makes an alarm the one active alarm of its device and rule. */
const activeKey = (deviceId: string, ruleId: string) => `${deviceId}:${ruleId}`;

/**
 * Raises an alarm unless its device and rule already have an active one: the claim on (device, rule) is
 * taken before the append, so that of any number of concurrent evaluations exactly one raises.
 * Answers the id of the alarm that is active (this one or the one that held the claim).
 */
export async function raiseAlarm(
  ports: Pick<Ports, 'store' | 'db'>,
  data: Omit<AlarmRaisedData, 'alarmId'>,
  context: CommandContext,
): Promise<{ alarmId: string; raised: boolean; position: string | null }> {
  const alarmId = newAggregateId(context);
  const stream = alarmStream(context.tenantId, alarmId);
  if (data.ruleId) {
    const scope = activeAlarmScope(context.tenantId);
    const key = activeKey(data.deviceId, data.ruleId);
    try {
      await claim(ports.db, scope, key, alarmId, 'CONFLICT');
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const holder = await ports.db.query<{ owner: string }>('select owner from claims where scope = $1 and key = $2', [scope, key]);
      return { alarmId: holder.rows[0]?.owner ?? alarmId, raised: false, position: null };
    }
    try {
      const result = await handleCommand(ports.store, alarmDecider, stream, { type: 'RaiseAlarm', data: { ...data, alarmId } }, context);
      return { alarmId, raised: result.applied, position: result.events.at(-1)?.position ?? null };
    } catch (error) {
      await releaseClaims(ports.db, scope, alarmId);
      throw error;
    }
  }
  const result = await handleCommand(ports.store, alarmDecider, stream, { type: 'RaiseAlarm', data: { ...data, alarmId } }, context);
  return { alarmId, raised: true, position: result.events.at(-1)?.position ?? null };
}

/** Clears an alarm and frees its (device, rule) for the next one. */
async function clearAlarm(
  ports: Pick<Ports, 'store' | 'db'>,
  alarmId: string,
  clear: Omit<Extract<AlarmCommand, { type: 'ClearAlarm' }>, 'type'>,
  context: CommandContext,
) {
  const result = await handleCommand(
    ports.store,
    alarmDecider,
    alarmStream(context.tenantId, alarmId),
    { type: 'ClearAlarm', ...clear },
    context,
  );
  if (!result.state.raised) throw new DomainError('NOT_FOUND');
  await releaseClaims(ports.db, activeAlarmScope(context.tenantId), alarmId);
  return result;
}

/** Clears the active alarm of a device and rule, if there is one (a rule chain's clear-alarm node): null when none is. */
export async function clearActiveAlarm(
  ports: Pick<Ports, 'store' | 'db'>,
  deviceId: string,
  ruleId: string,
  clear: Omit<Extract<AlarmCommand, { type: 'ClearAlarm' }>, 'type'>,
  context: CommandContext,
) {
  const holder = await ports.db.query<{ owner: string }>('select owner from claims where scope = $1 and key = $2', [
    activeAlarmScope(context.tenantId),
    activeKey(deviceId, ruleId),
  ]);
  const alarmId = holder.rows[0]?.owner;
  return alarmId ? clearAlarm(ports, alarmId, clear, context) : null;
}

type AlarmWrites =
  | 'alarm.ack'
  | 'alarm.process'
  | 'alarm.clear'
  | 'alarm.manual'
  | 'alarm.ticket'
  | 'alarm.closeTicket'
  | 'alarmRule.create'
  | 'alarmRule.update'
  | 'alarmRule.delete';

/** Alarm settings and the alarm lifecycle (issue 12): who acknowledged, processed or cleared what is on each alarm's stream. */
export const alarmHandlers: Pick<Handlers<AlarmRoutes>, AlarmWrites> = {
  async 'alarm.ack'({ body }, ctx) {
    return perItemFound(body.ids, (id) => alarmCommand(ctx, id, { type: 'AcknowledgeAlarm' }).then(found), ctx.lang);
  },

  async 'alarm.process'({ body }, ctx) {
    return perItemFound(body.ids, (id) => alarmCommand(ctx, id, { type: 'ProcessAlarm', note: body.note }).then(found), ctx.lang);
  },

  async 'alarm.clear'({ body }, ctx) {
    const at = new Date().toISOString();
    return perItemFound(
      body.ids,
      (id) => clearAlarm(ctx.ports, id, { value: null, at, auto: false, note: null }, commandContextOf(ctx)),
      ctx.lang,
    );
  },

  async 'alarm.manual'({ body }, ctx) {
    if (!body.confirmIncomplete && body.rows.some(isIncomplete)) throw new DomainError('ALARM_INCOMPLETE');
    const { tenantId } = callerOf(ctx);
    const known = new Set(await ctx.ports.lookups.devicesOfTenant(tenantId, [...new Set(body.rows.map((r) => r.deviceId))]));
    const unknown = body.rows.findIndex((r) => !known.has(r.deviceId));
    if (unknown >= 0) throw new DomainError('NOT_FOUND', { field: `rows.${unknown}.deviceId` });
    const ids: string[] = [];
    const at = new Date().toISOString();
    for (const [i, row] of body.rows.entries()) {
      const context = commandContextOf(ctx);
      // Each manual entry is an alarm of its own, keyed by its id (no claim: nothing evaluates it).
      const raised = await raiseAlarm(
        ctx.ports,
        {
          ruleId: null,
          ruleName: null,
          deviceId: row.deviceId,
          variable: row.variable,
          type: row.type ?? 'device',
          category: row.category,
          mode: null,
          level: row.level ?? 3,
          trigger: row.trigger ?? 'manual',
          threshold: null,
          value: row.value,
          text: null,
          at,
          faultFlag: row.faultFlag ?? false,
          cause: row.cause,
          suggestion: row.suggestion,
          push: 'firstTime',
          pushIntervalMin: null,
        },
        { ...context, idempotencyKey: context.idempotencyKey ? `${context.idempotencyKey}:${i}` : undefined },
      );
      ids.push(raised.alarmId);
    }
    return { ids };
  },

  async 'alarm.ticket'({ body }, ctx) {
    if ((await ctx.ports.lookups.contactsOfTenant(callerOf(ctx).tenantId, [body.contactId])).length === 0)
      throw new DomainError('NOT_FOUND', { field: 'contactId' });
    const ticketId = `WO-${new Date().toISOString().slice(0, 10).replaceAll('-', '')}-${randomUUID().slice(0, 8).toUpperCase()}`;
    const result = await alarmCommand(ctx, body.id, { type: 'OpenTicket', ticketId, contactId: body.contactId, note: body.note });
    return { id: body.id, ticketId: result.state.ticket?.ticketId ?? ticketId };
  },

  async 'alarm.closeTicket'({ body }, ctx) {
    await alarmCommand(ctx, body.id, { type: 'CloseTicket' });
    return { id: body.id };
  },

  async 'alarmRule.create'({ body }, ctx) {
    await checkRule(ctx, body);
    const ruleId = newAggregateId(commandContextOf(ctx));
    await runCommand(ctx, alarmRuleDecider, alarmRuleStream(callerOf(ctx).tenantId, ruleId), { type: 'Create', id: ruleId, fields: body });
    return { id: ruleId };
  },

  async 'alarmRule.update'({ body }, ctx) {
    const { id, ...fields } = body;
    await checkRule(ctx, fields);
    await runCommand(ctx, alarmRuleDecider, alarmRuleStream(callerOf(ctx).tenantId, id), { type: 'Update', id, fields });
    return { id };
  },

  async 'alarmRule.delete'({ query }, ctx) {
    return perItemFound(
      query.ids,
      (id) => runCommand(ctx, alarmRuleDecider, alarmRuleStream(callerOf(ctx).tenantId, id), { type: 'Delete', id }),
      ctx.lang,
    );
  },
};

/** An alarm that does not exist answers NOT_FOUND rather than nothing changed. */
function found<T extends { state: { raised: unknown } }>(result: T): T {
  if (!result.state.raised) throw new DomainError('NOT_FOUND');
  return result;
}

/** The commands of the alarm reactor (on the telemetry): raise, count repeats, clear, through the dispatch port. */
export function alarmDispatchers(ports: Omit<Ports, 'dispatch'>): Pick<CommandDispatchers, 'RaiseAlarm' | 'RepeatAlarm' | 'ClearAlarm'> {
  const contextOf = (metadata: DispatchMetadata): CommandContext => ({ ...metadata });
  return {
    async RaiseAlarm(command, metadata) {
      const result = await raiseAlarm(ports, command.alarm, contextOf(metadata));
      return { position: result.position, id: result.alarmId };
    },
    async RepeatAlarm(command, metadata) {
      const result = await handleCommand(
        ports.store,
        alarmDecider,
        alarmStream(metadata.tenantId, command.alarmId),
        { type: 'RepeatAlarm', count: command.count, value: command.value, at: command.at },
        contextOf(metadata),
      );
      return { position: result.events.at(-1)?.position ?? null };
    },
    async ClearAlarm(command, metadata) {
      const result = await clearAlarm(
        ports,
        command.alarmId,
        { value: command.value, at: command.at, auto: true, note: null },
        contextOf(metadata),
      );
      return { position: result.events.at(-1)?.position ?? null };
    },
  };
}
