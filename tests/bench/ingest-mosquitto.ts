import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import { connectExternalMqtt } from '@iot/infra/mqtt/client.ts';
import { connectMosquittoAccounts } from '@iot/infra/broker-accounts/mosquitto.ts';
import { WriteBatcher } from '@iot/ingest/batcher.ts';
import { ClickHouseTimeSeriesStore } from '@iot/infra/timeseries/clickhouse.ts';
import { startMosquitto } from '../harness/mosquitto.ts';
import { waitFor } from '../harness/process.ts';
import { bareRows, benchProduct, benchTenantApi, countRows, registerDevices, startBenchPlatform } from './bare.ts';
import type { Figure } from './figure.ts';
import { load } from './ingest.ts';
import { startIngestChild } from './ingest-child.ts';
import { startSink } from './sink.ts';

const DEVICES = 100;

/**
 * `ingest-mosquitto` (issue 11, at scale): the same 100 devices and generator as `ingest-3dp`, through Mosquitto
 * with dynamic security to one ingest process on its shared subscription (authentication by the broker,
 * validation, chDB; a QoS 1 message acknowledged to the broker once stored). The limit is a bare subscriber on
 * the same broker in the same run: shared subscription, JSON.parse, batch, insert into chDB, nothing else.
 * A device's acknowledgement comes from the broker here, so `lost` counts what was acknowledged to devices and
 * is not in the store a minute after the load (the store is read as soon as all of it is there).
 * `ingest-mosquitto-2p` (issue 23, scale-out): the same load split between that process and a second one
 * (`--role ingest`, its own chDB: no ClickHouse server here) on the same shared subscription; its `scaling` is the
 * two processes' rate over the one's, and `lost` counts what neither stored. Both lines carry the generator's
 * ceiling (`gen_ceiling`: the same generator against a sink that acknowledges and drops).
 */
export async function benchIngestMosquitto(): Promise<Figure[]> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 15);
  const vars = 3;
  const broker = await startMosquitto({ dynamicSecurity: true });
  const bench = await startBenchPlatform('mosquitto', { MQTT_URL: broker.adminUrl, MQTT_DYNSEC: 'true', MQTT_CLIENT_ID: 'bench-ingest' });
  const { platform } = bench;
  const bare = await connectExternalMqtt({ url: broker.adminUrl, group: 'bench-bare', clientId: 'bench-bare' });
  try {
    const { call } = await benchTenantApi(platform);
    const productId = await benchProduct(call, 'BENCH-MOSQUITTO', vars);
    const devices = await registerDevices(call, productId, 'MOSQ', DEVICES);
    await platform.context.awaitProjections?.();
    // The platform binds each device account to its SN as client id; the generator names its clients `load-<sn>`.
    const accounts = await connectMosquittoAccounts({ url: broker.adminUrl });
    try {
      for (const d of devices) await accounts.send({ command: 'setClientId', username: d.sn, clientid: `load-${d.sn}` });
    } finally {
      await accounts.close();
    }
    const credentials = path.join(bench.dir, 'devices.csv');
    await writeFile(credentials, devices.map((d) => `${d.sn},${d.secret}`).join('\n'));

    const store = platform.timeseries as ClickHouseTimeSeriesStore;
    const bareStore = new ClickHouseTimeSeriesStore(store.client, 'chdb', 'telemetry_bare', false);
    await bareStore.migrate();
    // Group commit, as the platform's writer does: one insert per batch of messages.
    const bareBatcher = new WriteBatcher<TelemetryRow>((rows) => bareStore.insertTelemetry(rows), 100_000);
    const count = (table: string) => countRows(store.client, table);
    /**
     * The rows the table gained since `before`, once every value the broker acknowledged to the devices is among them
     * (the broker may still hold messages when the generator is done); a minute on, what is there.
     */
    const storedSince = async (table: string, before: number, acked: number) =>
      (
        await waitFor(
          `the acknowledged values in ${table}`,
          async () => {
            const n = (await count(table)) - before;
            return n >= acked * vars && { n };
          },
          60_000,
          200,
        ).catch(async () => ({ n: (await count(table)) - before }))
      ).n;

    const sink = await startSink();
    const ceiling = await load(sink.url, credentials, vars, seconds).finally(() => sink.close());
    const ceilingDps = Math.round((ceiling.acked * vars) / ceiling.seconds);

    const before = await count('telemetry');
    const measured = await load(broker.url, credentials, vars, seconds);
    const stored = await storedSince('telemetry', before, measured.acked);

    // Two ingest processes on the shared subscription: this one and a `--role ingest` one with a chDB of its own.
    const second = await startIngestChild({
      DATABASE_URL: bench.pgUrl,
      DATA_DIR: path.join(bench.dir, 'ingest-2'),
      LOG_LEVEL: 'silent',
      // No MQTT_DYNSEC: the accounts are the first process's (an ingest process with it binds them to the SN again).
      MQTT_URL: broker.adminUrl,
      MQTT_CLIENT_ID: 'bench-ingest-2',
    });
    let twoStored: number;
    let split: [number, number];
    let two: Awaited<ReturnType<typeof load>>;
    try {
      const firstBefore = await count('telemetry');
      const secondBefore = await second.count();
      two = await load(broker.url, credentials, vars, seconds);
      split = await waitFor(
        'the acknowledged values stored by one process or the other',
        async () => {
          const both: [number, number] = [(await count('telemetry')) - firstBefore, (await second.count()) - secondBefore];
          return both[0] + both[1] >= two.acked * vars && both;
        },
        60_000,
        200,
      ).catch(async () => [(await count('telemetry')) - firstBefore, (await second.count()) - secondBefore] as [number, number]);
      twoStored = split[0] + split[1];
    } finally {
      await second.stop();
    }

    // The bare pipeline on the same broker and accounts, on a topic of the devices' own that the platform does not take.
    await bare.onMessage('devices/+/bench', async (message) => {
      await bareBatcher.enqueue(bareRows(message));
    });
    const bareBefore = await count('telemetry_bare');
    const limit = await load(broker.url, credentials, vars, seconds, 'bench');
    const bareStored = await storedSince('telemetry_bare', bareBefore, limit.acked);

    const dps = (measured.acked * vars) / measured.seconds;
    const limitDps = (limit.acked * vars) / limit.seconds;
    const twoDps = (two.acked * vars) / two.seconds;
    const ceilingNote = (rate: number) =>
      ceilingDps < 2 * rate ? { note: `the generator's ceiling (${ceilingDps} dp/s) is below twice this rate` } : {};
    return [
      {
        bench: 'ingest-mosquitto',
        value: Math.round(dps),
        unit: 'dp/s',
        limit: Math.round(limitDps),
        limit_of: 'bare subscriber on the same Mosquitto (shared subscription, JSON.parse, group-commit batches into chDB), same generator',
        ratio: Number((dps / limitDps).toFixed(3)),
        p99_ms: measured.p99Ms,
        limit_p99_ms: limit.p99Ms,
        // Acknowledged values not stored (negative: messages in flight when the generator closed were stored too).
        lost: measured.acked * vars - stored,
        // Values stored beyond every message sent: a message stored twice.
        duplicates: Math.max(0, stored - measured.sent * vars),
        limit_lost: limit.acked * vars - bareStored,
        gen_ceiling: ceilingDps,
        ...ceilingNote(dps),
        devices: DEVICES,
        seconds,
      },
      {
        bench: 'ingest-mosquitto-2p',
        value: Math.round(twoDps),
        unit: 'dp/s',
        limit: Math.round(dps),
        limit_of: 'the same load through one ingest process (ingest-mosquitto), same run',
        scaling: Number((twoDps / dps).toFixed(3)),
        ratio_to_bare: Number((twoDps / limitDps).toFixed(3)),
        p99_ms: two.p99Ms,
        lost: two.acked * vars - twoStored,
        duplicates: Math.max(0, twoStored - two.sent * vars),
        // Values each process stored: the shared subscription's split.
        split,
        gen_ceiling: ceilingDps,
        ...ceilingNote(twoDps),
        processes: 2,
        devices: DEVICES,
        seconds,
      },
    ];
  } finally {
    await bare.close();
    await bench.stop();
    await broker.stop();
  }
}
