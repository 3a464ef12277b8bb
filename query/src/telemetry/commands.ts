import type { z } from 'zod';
import { DomainError, type DeviceEvent, type deviceCommandRow, type TelemetryRoutes } from '@iot/contracts';
import { desiredValues, reportsDesired, writableProperties } from '@iot/contracts/device/desired.ts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { readStreamOf, streamName, type StoredEventOf } from '@iot/contracts/ports/event-store.ts';
import type { TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { deviceWithModel, groupOfDevice } from '../device/history.ts';
import { assertInStation } from '../shared/station.ts';
import { isDeviceEvent } from '@iot/contracts/device/state.ts';
import { usernamesById } from '@iot/projections/user/read.ts';

type CommandRow = Omit<z.infer<typeof deviceCommandRow>, 'actorName'>;

/** The commands of a device's stream, newest first, each with how it ended. */
function commandsOf(history: StoredEventOf<DeviceEvent>[]): CommandRow[] {
  const byId = new Map<string, CommandRow>();
  for (const event of history) {
    const { occurredAt, actor } = event.metadata;
    switch (event.type) {
      case 'DeviceCommandSent': {
        const { messageId, kind, identifier, params, mode } = event.data;
        byId.set(messageId, {
          messageId,
          kind,
          identifier,
          params,
          mode,
          at: occurredAt,
          actorKind: actor.kind,
          actorId: actor.id,
          status: 'sent',
          output: null,
          settledAt: null,
        });
        break;
      }
      case 'DeviceCommandReplied': {
        const sent = byId.get(event.data.messageId);
        if (!sent) break;
        sent.status = 'replied';
        sent.output = event.data.output ?? null;
        sent.settledAt = occurredAt;
        break;
      }
      case 'DeviceCommandFailed': {
        const sent = byId.get(event.data.messageId);
        if (!sent) break;
        sent.status = event.data.reason;
        sent.settledAt = occurredAt;
        break;
      }
    }
  }
  return [...byId.values()].reverse();
}

async function reportedOf(timeseries: TimeSeriesStore | null, tenantId: string, deviceId: string) {
  const rows = (await timeseries?.latest({ tenantId, deviceIds: [deviceId] })) ?? [];
  return new Map(rows.map((r) => [r.variable, r]));
}

/** Reads of the commands sent to a device and of its desired state, from its events. */
export const deviceCommandQueryHandlers: Pick<Handlers<TelemetryRoutes>, 'device.commands' | 'device.desired'> = {
  async 'device.commands'({ query }, ctx) {
    const { tenantId } = callerOf(ctx);
    const history = await readStreamOf(ctx.ports.store, streamName('device', tenantId, query.id), isDeviceEvent);
    if (history.length === 0) throw new DomainError('NOT_FOUND');
    await assertInStation(ctx, groupOfDevice(history));
    const rows = commandsOf(history).slice(0, query.limit);
    const names = await usernamesById(ctx.ports.db, [...new Set(rows.map((r) => r.actorId))]);
    return rows.map((r) => ({ ...r, actorName: names.get(r.actorId) ?? null }));
  },

  async 'device.desired'({ query }, ctx) {
    const { tenantId } = callerOf(ctx);
    const { history, functions } = await deviceWithModel(ctx, query.id);
    const desired = desiredValues(history);
    const reported = await reportedOf(ctx.ports.timeseries, tenantId, query.id);
    const names = await usernamesById(ctx.ports.db, [...new Set([...desired.values()].map((d) => d.actorId))]);
    return writableProperties(functions).map((fn) => {
      const want = desired.get(fn.identifier);
      const row = reported.get(fn.identifier);
      return {
        identifier: fn.identifier,
        name: fn.name,
        desired: want?.value ?? null,
        desiredAt: want?.at ?? null,
        actorName: want ? (names.get(want.actorId) ?? null) : null,
        reported: row ? (row.text ?? row.value) : null,
        reportedAt: row ? row.ts.toISOString() : null,
        inSync: !want || (!!row && reportsDesired(want.value, row)),
      };
    });
  },
};
