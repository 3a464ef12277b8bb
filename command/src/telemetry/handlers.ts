import { randomUUID } from 'node:crypto';
import { DomainError, valueFits, type TelemetryRoutes, type ThingFunction } from '@iot/contracts';
import { desiredValues, reportsDesired, writableProperties } from '@iot/contracts/device/desired.ts';
import { callerOf, type Handlers, type Ports } from '@iot/contracts/http/handler.ts';
import type { CommandDispatchers } from '@iot/contracts/ports/dispatch.ts';
import { readStreamOf } from '@iot/contracts/ports/event-store.ts';
import { isDeviceEvent } from '@iot/contracts/device/state.ts';
import { handleCommand, loadState } from '../handler.ts';
import { deviceDecider, deviceStream } from '../device/decide.ts';
import { runCommand } from '../request.ts';

/** HTTP ingest (issue 11): a device without MQTT posts its readings with its credentials. */
export const telemetryHandlers: Pick<Handlers<TelemetryRoutes>, 'telemetry.report'> = {
  async 'telemetry.report'({ body }, ctx) {
    if (!ctx.ports.intake) throw new DomainError('INTERNAL');
    const { data, ...credentials } = body;
    const result = await ctx.ports.intake.report(credentials, data);
    if (!result) throw new DomainError('DEVICE_AUTH_FAILED');
    return result;
  },
};

/** How long a synchronous property set waits for the device's reply. */
const PROPERTY_TIMEOUT_MS = 10_000;

/** A command's parameters must fit the thing model: a service's inputs, or the property's own type. */
function checkParams(fn: ThingFunction | undefined, kind: 'service' | 'property', params: Record<string, unknown>) {
  if (!fn) throw new DomainError('COMMAND_INVALID', { reason: 'unknown identifier' });
  if (kind === 'property') {
    if (fn.type !== 'property' || fn.access !== 'rw') throw new DomainError('COMMAND_INVALID', { reason: 'not a writable property' });
    if (!('value' in params) || !valueFits(fn.dataType, params.value)) throw new DomainError('COMMAND_INVALID', { reason: 'value' });
    return { mode: 'async' as const, timeoutMs: null };
  }
  if (fn.type !== 'service') throw new DomainError('COMMAND_INVALID', { reason: 'not a service' });
  for (const input of fn.inputs) {
    if (!(input.identifier in params) || !valueFits(input.dataType, params[input.identifier]))
      throw new DomainError('COMMAND_INVALID', { reason: `input ${input.identifier}` });
  }
  const unknown = Object.keys(params).filter((k) => !fn.inputs.some((i) => i.identifier === k));
  if (unknown.length > 0) throw new DomainError('COMMAND_INVALID', { reason: `unknown inputs ${unknown.join(', ')}` });
  return fn.invoke === 'sync' ? { mode: 'sync' as const, timeoutMs: fn.timeoutMs } : { mode: 'async' as const, timeoutMs: null };
}

/** Commands to devices (issue 11): checked against the thing model the device reports against, recorded with who asked. */
export const commandHandlers: Pick<Handlers<TelemetryRoutes>, 'device.command' | 'device.setDesired'> = {
  async 'device.command'({ body }, ctx) {
    const { tenantId } = callerOf(ctx);
    const stream = deviceStream(tenantId, body.id);
    const { state, functions } = await deviceWithModel(ctx.ports, tenantId, body.id);
    const checked = checkParams(
      functions.find((f) => f.identifier === body.identifier),
      body.kind,
      body.params,
    );
    const mode = body.mode ?? checked.mode;
    const timeoutMs = mode === 'async' ? null : (checked.timeoutMs ?? PROPERTY_TIMEOUT_MS);
    // A process without a broker (`--role api`) has no downlink: nothing is recorded as sent.
    const link = ctx.ports.link;
    if (!link) throw new DomainError('INTERNAL');
    const messageId = randomUUID();
    await runCommand(ctx, deviceDecider, stream, {
      type: 'SendCommand',
      deviceId: body.id,
      messageId,
      kind: body.kind,
      identifier: body.identifier,
      params: body.params,
      mode,
    });
    const reply = await link.send(
      { sn: state.sn!, deviceId: body.id },
      { messageId, kind: body.kind, identifier: body.identifier, params: body.params },
      timeoutMs,
    );
    if (!reply) return { messageId, status: 'sent' as const, output: null };
    if (reply.ok) {
      await runCommand(ctx, deviceDecider, stream, { type: 'RecordReply', deviceId: body.id, messageId, output: reply.output });
      return { messageId, status: 'replied' as const, output: reply.output ?? null };
    }
    await runCommand(ctx, deviceDecider, stream, { type: 'RecordCommandFailure', deviceId: body.id, messageId, reason: reply.reason });
    return { messageId, status: reply.reason, output: null };
  },

  async 'device.setDesired'({ body }, ctx) {
    const { tenantId } = callerOf(ctx);
    const stream = deviceStream(tenantId, body.id);
    const { state, functions } = await deviceWithModel(ctx.ports, tenantId, body.id);
    checkParams(
      functions.find((f) => f.identifier === body.identifier),
      'property',
      { value: body.value },
    );
    await runCommand(ctx, deviceDecider, stream, { type: 'SetDesired', deviceId: body.id, identifier: body.identifier, value: body.value });
    const messageId = randomUUID();
    const message = { messageId, kind: 'property' as const, identifier: body.identifier, params: { value: body.value } };
    const link = ctx.ports.link;
    if (!link || !(await link.reachable({ sn: state.sn!, deviceId: body.id }))) return { messageId: null, status: 'offline' as const };
    await runCommand(ctx, deviceDecider, stream, { type: 'SendCommand', deviceId: body.id, ...message, mode: 'async' });
    await link.send({ sn: state.sn!, deviceId: body.id }, message, null);
    return { messageId, status: 'sent' as const };
  },
};

/** A device and the thing model it reports against (its bound version, or the draft before any publication). */
export async function deviceWithModel(ports: Pick<Ports, 'store' | 'lookups'>, tenantId: string, deviceId: string) {
  const { state } = await loadState(ports.store, deviceDecider, deviceStream(tenantId, deviceId));
  if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
  return { state, functions: await ports.lookups.thingModelOf(tenantId, state.productId!, state.modelVersion) };
}

async function reportedOf(ports: Pick<Ports, 'timeseries'>, tenantId: string, deviceId: string) {
  const rows = (await ports.timeseries?.latest({ tenantId, deviceIds: [deviceId] })) ?? [];
  return new Map(rows.map((r) => [r.variable, r]));
}

/** The desired values a device does not report yet: what goes out again when it reconnects. */
async function pendingDesired(ports: Pick<Ports, 'store' | 'lookups' | 'timeseries'>, tenantId: string, deviceId: string, before?: string) {
  const history = await readStreamOf(ports.store, deviceStream(tenantId, deviceId), isDeviceEvent);
  const desired = [...desiredValues(history)].filter(([, want]) => !before || want.at < before);
  // Most devices never had a desired value: a reconnect costs them one stream read, no model or time-series query.
  if (desired.length === 0) return null;
  const { state, functions } = await deviceWithModel(ports, tenantId, deviceId);
  const reported = await reportedOf(ports, tenantId, deviceId);
  const names = new Set(writableProperties(functions).map((f) => f.identifier));
  const pending = desired
    .filter(
      ([identifier, want]) => names.has(identifier) && !(reported.has(identifier) && reportsDesired(want.value, reported.get(identifier)!)),
    )
    .map(([identifier, want]) => ({ identifier, value: want.value }));
  return { state, pending };
}

/** A reply that came when nobody waited for it (an asynchronous command): recorded through the dispatch port. */
export function replyDispatchers(
  ports: Omit<Ports, 'dispatch'>,
): Pick<CommandDispatchers, 'ResendDesired' | 'RecordDeviceReply' | 'SendDeviceCommand'> {
  return {
    /** A rule chain's command node: checked against the thing model, recorded, sent; its reply is recorded when it comes. */
    async SendDeviceCommand(command, metadata) {
      const { tenantId } = metadata;
      const { state, functions } = await deviceWithModel(ports, tenantId, command.deviceId);
      checkParams(
        functions.find((f) => f.identifier === command.identifier),
        command.kind,
        command.params,
      );
      if (!ports.link) return { position: null };
      const message = { messageId: randomUUID(), kind: command.kind, identifier: command.identifier, params: command.params };
      const result = await handleCommand(
        ports.store,
        deviceDecider,
        deviceStream(tenantId, command.deviceId),
        { type: 'SendCommand', deviceId: command.deviceId, ...message, mode: 'async' },
        metadata,
      );
      if (result.applied) await ports.link.send({ sn: state.sn!, deviceId: command.deviceId }, message, null);
      return { position: result.events.at(-1)?.position ?? null };
    },
    /** A device (re)connected: the desired values it does not report yet go out again, each recorded as a command. */
    async ResendDesired(command, metadata) {
      const found = await pendingDesired(ports, metadata.tenantId, command.deviceId, command.before);
      if (!found || !found.state.enabled || !ports.link) return { position: null };
      const { state, pending } = found;
      let position: string | null = null;
      for (const { identifier, value } of pending) {
        const messageId = randomUUID();
        const message = { messageId, kind: 'property' as const, identifier, params: { value } };
        const result = await handleCommand(
          ports.store,
          deviceDecider,
          deviceStream(metadata.tenantId, command.deviceId),
          { type: 'SendCommand', deviceId: command.deviceId, ...message, mode: 'async' },
          { ...metadata, idempotencyKey: `${metadata.idempotencyKey}:${identifier}` },
        );
        position = result.events.at(-1)?.position ?? position;
        await ports.link.send({ sn: state.sn!, deviceId: command.deviceId }, message, null);
      }
      return { position };
    },
    async RecordDeviceReply(command, metadata) {
      const result = await handleCommand(
        ports.store,
        deviceDecider,
        deviceStream(metadata.tenantId, command.deviceId),
        { ...command, type: 'RecordReply' },
        metadata,
      );
      return { position: result.events.at(-1)?.position ?? null };
    },
  };
}
