import { describe, expect, it } from 'vitest';
import type { ThingFunction } from '@iot/contracts';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import { createIntake, SessionEnded } from './intake.ts';
import type { DeviceRef, DeviceRegistry } from './registry.ts';

const device: DeviceRef = {
  deviceId: 'd-1',
  tenantId: 't-1',
  sn: 'SN-1',
  name: 'one',
  productId: 'p-1',
  modelVersion: 1,
  nodeType: 'direct',
  gatewayId: null,
  groupId: null,
};
const temperature = { type: 'property', identifier: 'temperature', name: 'temperature', dataType: { type: 'float' } } as ThingFunction;

/** A registry that knows one device and holds its thing model back until `release` is called: a message stays in flight. */
function heldRegistry() {
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const registry = {
    authenticate: async () => device,
    model: async () => (await held, new Map([['temperature', temperature]])),
  } as unknown as DeviceRegistry;
  return { registry, release };
}

describe('intake sessions', () => {
  it('refuses, unacknowledged and unstored, a message in flight when its session is cut', async () => {
    const { registry, release } = heldRegistry();
    const stored: TelemetryRow[] = [];
    const sut = createIntake({ registry, sink: { write: async (rows) => void stored.push(...rows) }, deadLetters: () => {} });
    const session = (await sut.connect('firmware', 1, 'SN-1', 'secret'))!;

    const handling = sut.handle({
      topic: 'devices/SN-1/telemetry',
      payload: Buffer.from('{"temperature":20}'),
      qos: 1,
      clientId: session.sessionId,
    });
    // The device is disabled while its message waits for the thing model.
    expect(sut.cut((d) => d.deviceId === device.deviceId).map((s) => s.sessionId)).toEqual([session.sessionId]);
    release();

    await expect(handling).rejects.toBeInstanceOf(SessionEnded);
    expect(stored).toEqual([]);
    // And what the cut session sends next is refused before anything is looked at.
    await expect(
      sut.handle({ topic: 'devices/SN-1/telemetry', payload: Buffer.from('{"temperature":21}'), qos: 1, clientId: session.sessionId }),
    ).rejects.toBeInstanceOf(SessionEnded);
    expect(sut.mayPublish(session.sessionId, 'devices/SN-1/telemetry')).toBe(false);
  });

  it('takes what a session sent before its DISCONNECT, though the broker asks after the session ended; a cut session’s, never', async () => {
    const registry = {
      authenticate: async () => device,
      model: async () => new Map([['temperature', temperature]]),
    } as unknown as DeviceRegistry;
    const stored: TelemetryRow[] = [];
    const sut = createIntake({ registry, sink: { write: async (rows) => void stored.push(...rows) }, deadLetters: () => {} });
    const session = (await sut.connect('firmware', 1, 'SN-1', 'secret'))!;
    expect(sut.maySubscribe(session.sessionId, 'devices/SN-1/command/#')).toBe(true);

    // The broker reads a publish and the DISCONNECT after it at once, and ends the session before it asks about the publish.
    sut.disconnect(session.sessionId, 1);
    expect(sut.mayPublish(session.sessionId, 'devices/SN-1/telemetry')).toBe(true);
    expect(sut.mayPublish(session.sessionId, 'devices/SN-2/telemetry')).toBe(false);
    await sut.handle({ topic: 'devices/SN-1/telemetry', payload: Buffer.from('{"temperature":20}'), qos: 1, clientId: session.sessionId });
    expect(stored.map((r) => r.value)).toEqual([20]);
    // Nothing after it: an ended session subscribes to nothing.
    expect(sut.maySubscribe(session.sessionId, 'devices/SN-1/command/#')).toBe(false);

    // A device that loses the right to its sessions loses the ended ones too.
    sut.cut((d) => d.deviceId === device.deviceId);
    expect(sut.mayPublish(session.sessionId, 'devices/SN-1/telemetry')).toBe(false);
  });

  it('carries a device’s move to another group on its open session: its next readings go out under the new group', async () => {
    const registry = {
      authenticate: async () => device,
      model: async () => new Map([['temperature', temperature]]),
    } as unknown as DeviceRegistry;
    const stored: Array<string | null> = [];
    const sut = createIntake({
      registry,
      sink: { write: async () => {} },
      deadLetters: () => {},
      onStored: (owner) => void stored.push(owner.groupId),
    });
    const session = (await sut.connect('firmware', 1, 'SN-1', 'secret'))!;
    const reading = () =>
      sut.handle({ topic: 'devices/SN-1/telemetry', payload: Buffer.from('{"temperature":20}'), qos: 1, clientId: session.sessionId });
    await reading();
    sut.update('d-1', { groupId: 'g-2' });
    await reading();
    expect(stored).toEqual([null, 'g-2']);
  });

  it('keeps a client id within its device: the same id of two devices is two sessions', async () => {
    const other = { ...device, deviceId: 'd-2', tenantId: 't-2', sn: 'SN-2' };
    const registry = { authenticate: async (username: string) => (username === 'SN-2' ? other : device) } as unknown as DeviceRegistry;
    const sut = createIntake({ registry, sink: { write: async () => {} }, deadLetters: () => {} });
    const first = (await sut.connect('meter-1', 1, 'SN-1', 'a'))!;
    const second = (await sut.connect('meter-1', 2, 'SN-2', 'b'))!;
    expect(first.sessionId).not.toBe(second.sessionId);
    expect(sut.sessionOf('d-1')?.device.sn).toBe('SN-1');
    expect(sut.sessionOf('d-2')?.device.sn).toBe('SN-2');
  });
});

describe('intake and the telemetry journal', () => {
  it('hands each QoS 1 message’s key to the sink, and stores nothing of a resend the sink holds', async () => {
    const registry = {
      authenticate: async () => device,
      model: async () => new Map([['temperature', temperature]]),
    } as unknown as DeviceRegistry;
    const written: Array<{ values: Array<number | null>; key?: string }> = [];
    const held = new Set<string>();
    const sut = createIntake({
      registry,
      sink: {
        write: async (rows, key) => {
          written.push({ values: rows.map((r) => r.value), key });
          if (key) held.add(key);
        },
        holds: (key, dup) => dup && held.has(key),
      },
      deadLetters: () => {},
    });
    const session = (await sut.connect('firmware', 1, 'SN-1', 'secret'))!;
    const send = (value: number, messageId: number, dup: boolean) =>
      sut.handle({
        topic: 'devices/SN-1/telemetry',
        payload: Buffer.from(JSON.stringify({ temperature: value })),
        qos: 1,
        clientId: session.sessionId,
        messageId,
        dup,
      });
    await send(20, 7, false);
    await send(20, 7, true); // the resend of a message whose PUBACK was lost
    await send(21, 7, true); // another payload under the same packet id: another message
    await send(20, 8, false);
    expect(written.map((w) => w.values)).toEqual([[20], [21], [20]]);
    expect(new Set(written.map((w) => w.key)).size).toBe(3);
    expect(written[0]!.key).toContain(session.sessionId);
  });
});

describe('intake and OTA progress reports', () => {
  it('acknowledges a report once it is recorded, and leaves one it could not record unacknowledged, to be sent again', async () => {
    const registry = { authenticate: async () => device } as unknown as DeviceRegistry;
    const recorded: unknown[] = [];
    let failNext = true;
    const sut = createIntake({
      registry,
      sink: { write: async () => {} },
      deadLetters: () => {},
      onOtaProgress: async (_device, taskId, report) => {
        if (failNext) throw ((failNext = false), new Error('event store unreachable'));
        recorded.push({ taskId, report });
      },
    });
    const session = (await sut.connect('firmware', 1, 'SN-1', 'secret'))!;
    const report = {
      topic: 'devices/SN-1/ota/task-1/progress',
      payload: Buffer.from('{"status":"downloading","percent":40}'),
      qos: 1 as const,
    };

    await expect(sut.handle({ ...report, clientId: session.sessionId, messageId: 7 })).rejects.toThrow('event store unreachable');
    expect(recorded).toEqual([]);
    await sut.handle({ ...report, clientId: session.sessionId, messageId: 7, dup: true });

    expect(recorded).toEqual([{ taskId: 'task-1', report: { stage: 'downloading', percent: 40 } }]);
  });
});
