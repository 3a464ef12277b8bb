import { randomUUID } from 'node:crypto';
import { DomainError, valueFits, type TelemetryRoutes, type ThingFunction } from '@iot/contracts';
import { callerOf, type Handlers, type Ports } from '@iot/contracts/http/handler.ts';
import type { DispatchMetadata } from '@iot/contracts/ports/dispatch.ts';
import { handleCommand, loadState } from '../handler.ts';
import { deviceDecider, deviceStream } from '../device/decide.ts';
import { productDecider, productStream } from '../product/decide.ts';
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
export const commandHandlers: Pick<Handlers<TelemetryRoutes>, 'device.command'> = {
  async 'device.command'({ body }, ctx) {
    const { tenantId } = callerOf(ctx);
    const stream = deviceStream(tenantId, body.id);
    const { state } = await loadState(ctx.ports.store, deviceDecider, stream);
    if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
    const product = (await loadState(ctx.ports.store, productDecider, productStream(tenantId, state.productId!))).state;
    const functions = (state.modelVersion > 0 ? product.versions[state.modelVersion - 1] : product.functions) ?? [];
    const { mode, timeoutMs } = checkParams(
      functions.find((f) => f.identifier === body.identifier),
      body.kind,
      body.params,
    );
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
    if (!ctx.ports.link) throw new DomainError('INTERNAL');
    const reply = await ctx.ports.link.send(
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
};

/** A reply that came when nobody waited for it (an asynchronous command): recorded through the dispatch port. */
export function replyDispatchers(ports: Omit<Ports, 'dispatch'>) {
  return {
    async RecordDeviceReply(command: { deviceId: string; messageId: string; output: unknown }, metadata: DispatchMetadata) {
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
