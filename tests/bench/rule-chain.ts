/**
 * `rule-chain` (issue 19): telemetry messages per second through a root chain of filter, transform and Warehousing
 * (storing into chDB through the time-series port), against the limit measured in the same run: the same messages
 * stored through the same port without a chain. Batches alternate between the two, so merges and noise weigh alike.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT_CHAIN_ID, ruleChainDefinition, type RuleMessage } from '@iot/contracts';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import { ChdbTimeSeriesStore } from '@iot/infra/timeseries/chdb.ts';
import { runChain, type RuleEnginePorts } from '@iot/projections/rule/engine.ts';
import type { Figure } from './figure.ts';

const chain = ruleChainDefinition.parse({
  name: 'bench',
  firstNodeId: 'filter',
  nodes: [
    { id: 'filter', name: 'plausible', kind: 'filter', config: { expression: 'msg.temp > -100.0 && msg.temp < 200.0' } },
    {
      id: 'transform',
      name: 'fahrenheit',
      kind: 'transform',
      config: { set: [{ field: 'tempF', expression: 'msg.temp * 1.8 + 32.0' }] },
    },
    { id: 'store', name: 'store', kind: 'warehousing', config: {} },
  ],
  links: [
    { from: 'filter', to: 'transform', label: 'True' },
    { from: 'transform', to: 'store', label: 'Success' },
  ],
});

const rowsOf = (m: RuleMessage): TelemetryRow[] =>
  Object.entries(m.data).map(([variable, v]) => ({
    tenantId: m.tenantId,
    deviceId: m.deviceId,
    productId: m.productId,
    variable,
    ts: new Date(m.ts),
    value: typeof v === 'number' ? v : null,
    text: typeof v === 'number' ? null : String(v),
  }));

export async function benchRuleChain(options: { messages?: number; batch?: number; devices?: number } = {}): Promise<Figure[]> {
  const total = options.messages ?? 60_000;
  const batch = options.batch ?? 5_000;
  const devices = options.devices ?? 500;
  const dir = mkdtempSync(join(tmpdir(), 'bench-rule-chain-'));
  const store = new ChdbTimeSeriesStore({ path: join(dir, 'chdb'), table: `bench_rule_${Date.now().toString(36)}` });
  try {
    await store.migrate();
    const start = Date.UTC(2026, 0, 1);
    const message = (i: number): RuleMessage => ({
      id: `m${i}`,
      type: 'telemetry',
      tenantId: 't1',
      deviceId: `d${i % devices}`,
      productId: 'p1',
      ts: new Date(start + i * 10).toISOString(),
      data: { temp: 20 + (i % 50) / 10, humidity: 40 + (i % 30), voltage: 220 + (i % 7) },
      metadata: {},
    });
    let pending: TelemetryRow[] = [];
    const ports: RuleEnginePorts = {
      dispatch: async () => ({ position: null }),
      lookups: { device: async () => null, product: async () => null, latest: async () => ({}) },
      chain: async () => null,
      sleep: async () => undefined,
      notify: async () => undefined,
      forward: async () => undefined,
      store: async (m) => void pending.push(...rowsOf(m)),
    };
    await store.insertTelemetry(rowsOf(message(-1)));
    let chainMs = 0;
    let bareMs = 0;
    for (let from = 0; from < total; from += batch) {
      const messages = Array.from({ length: Math.min(batch, total - from) }, (_, k) => message(from + k));
      let began = performance.now();
      await store.insertTelemetry(messages.flatMap(rowsOf));
      bareMs += performance.now() - began;

      began = performance.now();
      for (const m of messages) await runChain(ports, ROOT_CHAIN_ID, chain, { ...m, id: `c${m.id}` });
      const rows = pending;
      pending = [];
      await store.insertTelemetry(rows);
      chainMs += performance.now() - began;
    }
    return [
      {
        bench: 'rule-chain',
        value: Math.round((total * 1000) / chainMs),
        unit: 'messages/s',
        limit: Math.round((total * 1000) / bareMs),
        limit_of: 'the same messages (3 dp each) stored through the same time-series port without a chain, same run',
        chain: 'filter -> transform -> warehousing',
      },
    ];
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
