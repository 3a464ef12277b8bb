import { describe, expect, it } from 'vitest';
import { ROOT_CHAIN_ID, ruleChainDefinition, type RuleChainEvent, type RuleMessage } from '@iot/contracts';
import type { StoredEventOf } from '@iot/contracts/ports/event-store.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { createRuleChainReactor } from './reactor.ts';

/** Version `n` of a root chain: it marks each message with `n`, then stores it. */
const versionOf = (n: number) =>
  ruleChainDefinition.parse({
    name: `v${n}`,
    firstNodeId: 'mark',
    nodes: [
      { id: 'mark', name: 'mark', kind: 'transform', config: { set: [{ field: 'version', expression: String(n) }] } },
      { id: 'store', name: 'store', kind: 'warehousing', config: {} },
    ],
    links: [{ from: 'mark', to: 'store', label: 'Success' }],
  });
let position = 0;
const stored = (event: RuleChainEvent): StoredEventOf<RuleChainEvent> =>
  ({
    ...event,
    id: `e${++position}`,
    streamName: `ruleChain-t1.${ROOT_CHAIN_ID}`,
    version: position,
    position: String(position),
    recordedAt: new Date(),
    metadata: {
      tenantId: 't1',
      actor: { kind: 'user', id: 'u1' },
      correlationId: 'c',
      causationId: null,
      occurredAt: '',
      schemaVersion: 1,
    },
  }) as StoredEventOf<RuleChainEvent>;

function sut(clock: { now: number; random: number } = { now: 0, random: 0 }) {
  const traces: Array<{ nodeId: string; n: unknown }> = [];
  const messages: RuleMessage[] = [];
  const failures: unknown[] = [];
  const runs: string[] = [];
  const noDatabase: Sql = {
    query: () => Promise.reject(new Error('no database in this test')),
  } as unknown as Sql;
  const reactor = createRuleChainReactor({
    db: noDatabase,
    ports: {
      dispatch: async () => ({ position: null }),
      lookups: { device: async () => null, product: async () => null, latest: async () => ({}) },
      sleep: async () => {},
      notify: async () => {},
      forward: async () => {},
      store: async (m) => {
        messages.push(m);
      },
    },
    onFailure: (f) => failures.push(f),
    onTrace: (_tenant, t) => traces.push({ nodeId: t.nodeId, n: t.input.data.n }),
    onRun: (tenant, chainId) => runs.push(`${tenant}/${chainId}`),
    onError: (e) => failures.push(e),
    now: () => clock.now,
    random: () => clock.random,
  });
  return { reactor, messages, failures, traces, runs };
}
const device = { tenantId: 't1', deviceId: 'd1', productId: 'p1' };
const sample = (i: number) => [
  { tenantId: 't1', deviceId: 'd1', variable: 'n', ts: new Date(1_700_000_000_000 + i), value: i, text: null },
];

describe('root chains on the telemetry', () => {
  it('runs nothing for a tenant whose root chain only stores, yet counts the root chain as triggered', async () => {
    const { reactor, messages, runs } = sut();
    reactor.observe(device, sample(1));
    await reactor.drain();
    expect(messages).toEqual([]);
    expect(reactor.stats().done).toBe(0);
    expect(runs).toEqual([`t1/${ROOT_CHAIN_ID}`]);
  });

  it('switches the running version under load: every message goes through exactly one version, none lost or run twice', async () => {
    const { reactor, messages, failures } = sut();
    await reactor.onEvent(
      stored({ type: 'RuleChainCreated', data: { chainId: ROOT_CHAIN_ID, root: true, version: 1, chain: versionOf(1) } }),
    );
    for (let i = 0; i < 1000; i++) {
      if (i === 400)
        await reactor.onEvent(
          stored({
            type: 'RuleChainSaved',
            data: { chainId: ROOT_CHAIN_ID, version: 2, chain: versionOf(2), restoredFrom: null, run: true },
          }),
        );
      if (i === 700)
        await reactor.onEvent(stored({ type: 'RuleChainVersionSwitched', data: { chainId: ROOT_CHAIN_ID, version: 1, from: 2 } }));
      reactor.observe(device, sample(i));
    }
    await reactor.drain();
    expect(failures).toEqual([]);
    expect(messages).toHaveLength(1000);
    expect(new Set(messages.map((m) => m.id)).size).toBe(1000);
    const versionAt = new Map(messages.map((m) => [m.data.n as number, m.data.version]));
    expect([...Array(1000).keys()].map((i) => versionAt.get(i))).toEqual([...Array(1000).keys()].map((i) => (i >= 400 && i < 700 ? 2 : 1)));
  });

  it('runs a stored batch message by message, under ids of the batch that a second run repeats', async () => {
    const { reactor, messages } = sut();
    await reactor.onEvent(
      stored({ type: 'RuleChainCreated', data: { chainId: ROOT_CHAIN_ID, root: true, version: 1, chain: versionOf(1) } }),
    );
    const at = new Date(1_700_000_000_000);
    const row = (deviceId: string, variable: string, value: number) => ({ tenantId: 't1', deviceId, variable, ts: at, value, text: null });
    // Two messages of d1 at the same time, then a gateway's message with rows of d2 and d3.
    const rows = [row('d1', 'n', 1), row('d1', 'n', 2), row('d2', 'n', 3), row('d3', 'n', 4), row('d2', 'm', 5)];
    await reactor.observeBatch(rows, [1, 1, 3], 'j-b-7');
    await reactor.observeBatch(rows, [1, 1, 3], 'j-b-7');
    const seen = messages.map((m) => `${m.id} ${m.deviceId} ${JSON.stringify(m.data)}`);
    const once = [
      'j-b-7.0 d1 {"n":1,"version":1}',
      'j-b-7.1 d1 {"n":2,"version":1}',
      'j-b-7.2 d2 {"n":3,"m":5,"version":1}',
      'j-b-7.3 d3 {"n":4,"version":1}',
    ];
    expect(seen).toEqual([...once, ...once]);
  });

  it("reads a device's fields for enrich once per TTL per tenant, again once it changed or its read failed", async () => {
    const clock = { now: 0 };
    const reads: string[] = [];
    let failNext = false;
    const enriched: RuleMessage[] = [];
    const reactor = createRuleChainReactor({
      db: { query: () => Promise.reject(new Error('no database in this test')) } as unknown as Sql,
      ports: {
        dispatch: async () => ({ position: null }),
        lookups: {
          device: async (tenantId, deviceId) => {
            reads.push(`${tenantId}/${deviceId}`);
            if (failNext) {
              failNext = false;
              throw new Error('read failed');
            }
            return { name: `${deviceId} of ${tenantId}`, read: reads.length };
          },
          product: async () => null,
          latest: async () => ({}),
        },
        sleep: async () => {},
        notify: async () => {},
        forward: async () => {},
        store: async (m) => void enriched.push(m),
      },
      onFailure: () => undefined,
      onError: () => undefined,
      now: () => clock.now,
    });
    const enrich = ruleChainDefinition.parse({
      name: 'enrich',
      firstNodeId: 'enrich',
      nodes: [
        { id: 'enrich', name: 'enrich', kind: 'enrich', config: { device: true } },
        { id: 'store', name: 'store', kind: 'warehousing', config: {} },
      ],
      links: [{ from: 'enrich', to: 'store', label: 'Success' }],
    });
    for (const tenantId of ['t1', 't2'])
      await reactor.onEvent({
        ...stored({ type: 'RuleChainCreated', data: { chainId: ROOT_CHAIN_ID, root: true, version: 1, chain: enrich } }),
        metadata: { ...stored({ type: 'RuleChainDeleted', data: { chainId: ROOT_CHAIN_ID } } as RuleChainEvent).metadata, tenantId },
      });
    const row = (tenantId: string) => ({ tenantId, deviceId: 'd1', variable: 'n', ts: new Date(0), value: 1, text: null });
    const nameSeen = () => enriched.map((m) => (m.metadata.device as { name: string; read: number }).read);
    // Same device id in two tenants: two reads; a second message of each within the TTL: none.
    await reactor.observeBatch([row('t1'), row('t2'), row('t1'), row('t2')], [1, 1, 1, 1], null);
    expect(reads).toEqual(['t1/d1', 't2/d1']);
    expect(enriched.map((m) => (m.metadata.device as { name: string }).name).sort()).toEqual([
      'd1 of t1',
      'd1 of t1',
      'd1 of t2',
      'd1 of t2',
    ]);
    // The device of t1 changed: read again at its next message, t2's is not.
    reactor.forget({
      ...stored({ type: 'RuleChainDeleted', data: { chainId: ROOT_CHAIN_ID } } as RuleChainEvent),
      type: 'DeviceUpdated',
      data: { deviceId: 'd1' },
    } as never);
    await reactor.observeBatch([row('t1'), row('t2')], [1, 1], null);
    expect(reads).toEqual(['t1/d1', 't2/d1', 't1/d1']);
    // Past the TTL the old answer serves while it is read again.
    clock.now = 6_000;
    await reactor.observeBatch([row('t2')], [1], null);
    expect(reads).toEqual(['t1/d1', 't2/d1', 't1/d1', 't2/d1']);
    expect(nameSeen().at(-1)).toBe(2);
    // A first read that failed is not kept: the next message reads again.
    reactor.forget({
      ...stored({ type: 'RuleChainDeleted', data: { chainId: ROOT_CHAIN_ID } } as RuleChainEvent),
      type: 'DeviceUpdated',
      data: { deviceId: 'd1' },
    } as never);
    failNext = true;
    await reactor.observeBatch([row('t1')], [1], null);
    await reactor.observeBatch([row('t1')], [1], null);
    expect(reads).toEqual(['t1/d1', 't2/d1', 't1/d1', 't2/d1', 't1/d1', 't1/d1']);
    expect(nameSeen().at(-1)).toBe(6);
  });

  it('a deleted or store-only root chain stops running chains at once', async () => {
    const { reactor, messages } = sut();
    await reactor.onEvent(
      stored({ type: 'RuleChainCreated', data: { chainId: ROOT_CHAIN_ID, root: true, version: 1, chain: versionOf(1) } }),
    );
    reactor.observe(device, sample(1));
    await reactor.drain();
    const storeOnly = ruleChainDefinition.parse({
      name: 'store',
      firstNodeId: 's',
      nodes: [{ id: 's', name: 's', kind: 'warehousing', config: {} }],
    });
    await reactor.onEvent(
      stored({ type: 'RuleChainSaved', data: { chainId: ROOT_CHAIN_ID, version: 2, chain: storeOnly, restoredFrom: null, run: true } }),
    );
    reactor.observe(device, sample(2));
    await reactor.drain();
    expect(messages.map((m) => m.data.n)).toEqual([1]);
  });
});

describe('presence changes and alarms on the root chain', () => {
  it('enters them as presence and alarm messages of their device; ones read long after they happened enter nothing', async () => {
    const { reactor, messages } = sut();
    await reactor.onEvent(
      stored({ type: 'RuleChainCreated', data: { chainId: ROOT_CHAIN_ID, root: true, version: 1, chain: versionOf(1) } }),
    );
    const at = new Date().toISOString();
    const logged = (type: string, data: object, occurredAt = at) => {
      const e = stored({ type: 'RuleChainDeleted', data: { chainId: 'x' } });
      return { ...e, type, data, metadata: { ...e.metadata, occurredAt } } as never;
    };
    reactor.observeLog(logged('DeviceWentOffline', { deviceId: 'd1', at, reason: 'timeout' }));
    reactor.observeLog(logged('DeviceWentOnline', { deviceId: 'd1', at }, '2020-01-01T00:00:00Z'));
    reactor.observeLog(
      logged('AlarmRaised', {
        alarmId: 'a1',
        deviceId: 'd2',
        at,
        level: 3,
        ruleId: 'r1',
        ruleName: 'Hot',
        variable: 't',
        value: 31,
        text: null,
      }),
    );
    await reactor.drain();
    expect(messages.map((m) => [m.type, m.deviceId, m.data])).toEqual([
      ['presence', 'd1', { online: false, reason: 'timeout', version: 1 }],
      ['alarm', 'd2', { alarmId: 'a1', level: 3, ruleId: 'r1', ruleName: 'Hot', variable: 't', value: 31, text: null, version: 1 }],
    ]);
  });

  it("traces a node only while its debug is on: until its time limit, for its sample rate's share of messages", async () => {
    const clock = { now: Date.parse('2026-05-03T14:00:00Z'), random: 0.3 };
    const { reactor, traces } = sut(clock);
    await reactor.onEvent(
      stored({ type: 'RuleChainCreated', data: { chainId: ROOT_CHAIN_ID, root: true, version: 1, chain: versionOf(1) } }),
    );
    const debugOf = (until: string | null, sampleRate: number) =>
      stored({ type: 'RuleNodeDebugSet', data: { chainId: ROOT_CHAIN_ID, nodeId: 'mark', until, sampleRate } });
    await reactor.onEvent(debugOf('2026-05-03T14:05:00Z', 0.5));
    const send = async (i: number) => {
      reactor.observe(device, sample(i));
      await reactor.drain();
    };
    await send(1);
    clock.random = 0.7; // outside the sample of 0.5
    await send(2);
    clock.random = 0.1;
    clock.now = Date.parse('2026-05-03T14:04:59Z');
    await send(3);
    clock.now = Date.parse('2026-05-03T14:05:00Z'); // the time limit reached
    await send(4);
    await reactor.onEvent(debugOf('2026-05-03T15:00:00Z', 1));
    await send(5);
    await reactor.onEvent(debugOf(null, 1)); // switched off
    await send(6);
    expect(traces).toEqual([
      { nodeId: 'mark', n: 1 },
      { nodeId: 'mark', n: 3 },
      { nodeId: 'mark', n: 5 },
    ]);
  });
});
