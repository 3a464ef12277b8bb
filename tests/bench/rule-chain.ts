/**
 * `rule-chain` (issue 19): telemetry through the whole platform (MQTT intake at QoS 1, authentication, validation,
 * chDB) while the tenant's root chain runs the 6 nodes on every message: switch, filter, transform, enrich,
 * warehousing and forward to a local HTTP sink (through the forwarding outbox). The limit, in the same run and with the
 * same generator: the same ingest with the default root chain, which only stores.
 *
 * The chain runs beside the intake (a QoS 1 message is acknowledged once stored): the figure counts only the data
 * points whose message went through the whole chain, from the first publish until the last message left the chain,
 * so a chain that falls behind and drops messages (past its in-flight bound) is not counted as keeping up.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT_CHAIN_ID, type RuleChainDefinitionIn } from '@iot/contracts';
import type { ClickHouseTimeSeriesStore } from '@iot/infra/timeseries/clickhouse.ts';
import { benchProduct, benchTenantApi, countRows, registerDevices, startBenchPlatform } from './bare.ts';
import { rssPeak, type Figure } from './figure.ts';
import { startHttpSink } from './http-sink.ts';
import { cpuProfile } from './profile.ts';
import { load } from './ingest.ts';

const DEVICES = 100;
const VARS = 3;
/** Rounds of limit then chain, alternating, so that the machine's noise weighs on both alike. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/** Messages per POST to the sink (BENCH_FORWARD_BATCH=1: one POST per message, as a server that does not batch). */
const BATCH = Number(process.env.BENCH_FORWARD_BATCH ?? 100);

/** The chain: every node a telemetry message meets on its way to the store and the forwarding server. */
export function benchChain(serverId: string): RuleChainDefinitionIn {
  return {
    name: 'bench chain',
    firstNodeId: 'switch',
    nodes: [
      {
        id: 'switch',
        name: 'by type',
        kind: 'switch',
        config: { cases: [{ label: 'telemetry', expression: "msgType == 'telemetry'" }] },
      },
      { id: 'filter', name: 'plausible', kind: 'filter', config: { expression: 'msg.v1 > -1000.0 && msg.v1 < 100000.0' } },
      {
        id: 'transform',
        name: 'derived',
        kind: 'transform',
        config: { set: [{ field: 'total', expression: 'msg.v1 + msg.v2 + msg.v3' }] },
      },
      { id: 'enrich', name: 'device and product', kind: 'enrich', config: { device: true, product: true } },
      { id: 'store', name: 'store', kind: 'warehousing', config: {} },
      { id: 'forward', name: 'to the sink', kind: 'forward', config: { serverId, payloadTemplate: '{{values}}' } },
    ],
    links: [
      { from: 'switch', to: 'filter', label: 'telemetry' },
      { from: 'filter', to: 'transform', label: 'True' },
      { from: 'transform', to: 'enrich', label: 'Success' },
      { from: 'enrich', to: 'store', label: 'Success' },
      { from: 'store', to: 'forward', label: 'Success' },
    ],
  };
}

export async function benchRuleChain(): Promise<Figure[]> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 15);
  const sink = await startHttpSink();
  // The sink is on loopback: allowed as an operator allows an on-premise range.
  const bench = await startBenchPlatform('rule-chain', { OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
  const { dir, platform } = bench;
  try {
    const { call } = await benchTenantApi(platform);
    const productId = await benchProduct(call, 'BENCH-RULE', VARS);
    const devices = await registerDevices(call, productId, 'RULE', DEVICES);
    const credentials = path.join(dir, 'devices.csv');
    await writeFile(credentials, devices.map((d) => `${d.sn},${d.secret}`).join('\n'));
    // The sink takes batches (the server's `batchSize`): several messages to a POST, as a target that allows it.
    const { id: serverId } = await call('forwardServer.createHttp', {
      body: { name: 'bench sink', url: sink.url, batchSize: BATCH },
    });
    await platform.context.awaitProjections?.();
    const rules = platform.rules!;
    const store = platform.timeseries as ClickHouseTimeSeriesStore;

    // The chain as version 2 (run at once); version 1 is the default root chain (Warehousing only).
    await call('ruleChain.update', { body: { id: ROOT_CHAIN_ID, chain: benchChain(serverId), baseVersion: 1 } });
    const running = async (version: number) => {
      await call('ruleChain.run', { body: { id: ROOT_CHAIN_ID, version } });
      await platform.context.awaitProjections?.();
      if (rules.stats().activeTenants !== (version === 1 ? 0 : 1)) throw new Error(`root chain version ${version} is not running`);
    };

    const rss = rssPeak();
    const bare = { acked: 0, seconds: 0, stored: 0, p99: 0 };
    const chain = { acked: 0, seconds: 0, stored: 0, through: 0, dropped: 0, held: 0, forwarded: 0, p99: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      // The limit: the default root chain, which the intake's storing runs.
      await running(1);
      let rows0 = await countRows(store.client, 'telemetry');
      const stopLimitProfile = await cpuProfile(`rule-chain-limit-round-${round}`);
      const limit = await load(bench.mqttUrl, credentials, VARS, seconds);
      await platform.ingest!.flush();
      await stopLimitProfile();
      bare.stored += (await countRows(store.client, 'telemetry')) - rows0;
      bare.acked += limit.acked;
      bare.seconds += limit.seconds;
      bare.p99 = Math.max(bare.p99, limit.p99Ms);

      await running(2);
      const before = rules.stats();
      const received0 = await sink.count();
      rows0 = await countRows(store.client, 'telemetry');
      // BENCH_CPU_PROF=<dir>: a CPU profile of this process's main thread in each round, the limit's and the chain's alike.
      const stopChainProfile = await cpuProfile(`rule-chain-round-${round}`);
      const began = performance.now();
      const watch = process.env.BENCH_TRACE
        ? setInterval(
            () => process.stderr.write(`${JSON.stringify({ s: Math.round(performance.now() - began), ...rules.stats() })}\n`),
            1000,
          )
        : null;
      const chained = await load(bench.mqttUrl, credentials, VARS, seconds);
      const loaded = performance.now();
      await platform.ingest!.flush();
      await rules.drain();
      if (watch) clearInterval(watch);
      await stopChainProfile();
      // The generator's own time (from its first publish, as for the limit) and what the chain needed after its last.
      chain.seconds += chained.seconds + (performance.now() - loaded) / 1000;
      const after = rules.stats();
      chain.stored += (await countRows(store.client, 'telemetry')) - rows0;
      chain.acked += chained.acked;
      chain.through += Math.min(after.done - before.done, chained.acked);
      chain.dropped += after.dropped - before.dropped;
      chain.held += after.held - before.held;
      chain.p99 = Math.max(chain.p99, chained.p99Ms);
      // Delivery to the sink goes on at the outbox's pace (the `forward-http` bench); it ends before the next round,
      // so that the limit is not measured beside it.
      const deadline = Date.now() + 300_000;
      while ((await sink.count()) - received0 < after.done - before.done && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      chain.forwarded += (await sink.count()) - received0;
    }
    const limitDps = (bare.acked * VARS) / bare.seconds;
    const dps = (chain.through * VARS) / chain.seconds;

    return [
      {
        bench: 'rule-chain',
        value: Math.round(dps),
        unit: 'dp/s',
        limit: Math.round(limitDps),
        limit_of: `the same MQTT ingest (same generator, devices and ${VARS} dp a message) with the default root chain (Warehousing only), in alternating rounds of the same run`,
        ratio: Number((dps / limitDps).toFixed(3)),
        chain: 'switch -> filter -> transform -> enrich -> warehousing -> forward (HTTP sink)',
        forward_batch: BATCH,
        acked_dp_s: Math.round((chain.acked * VARS) / chain.seconds),
        messages_acked: chain.acked,
        messages_through_chain: chain.through,
        // Messages the chain had no room for (its in-flight bound): stored, but never run through the chain.
        dropped: chain.dropped,
        // Stored batches whose writer (and so their acknowledgements) waited for the chain's in-flight bound.
        intake_held: chain.held,
        // Acknowledged values that are not in the store: must be 0.
        lost: chain.acked * VARS - chain.stored,
        limit_lost: bare.acked * VARS - bare.stored,
        forwarded_to_sink: chain.forwarded,
        p99_ms: chain.p99,
        limit_p99_ms: bare.p99,
        rss_mb: rss.stop(),
        devices: DEVICES,
        seconds,
        rounds: ROUNDS,
      },
    ];
  } finally {
    await bench.stop();
    await sink.close();
  }
}
