import type { ClickHouseClient } from '@clickhouse/client';
import { startEmbeddedMqtt } from '@iot/infra/mqtt/embedded.ts';
import { seedDemoTenant, type Platform } from '@iot/infra/platform.ts';
import { ClickHouseTimeSeriesStore } from '@iot/infra/timeseries/clickhouse.ts';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import { textOf } from '@iot/ingest/payload.ts';

/**
 * What every bare pipeline of the ingest benchmarks does with a message, and nothing more: the device from the topic
 * (`devices/<id>/...`), JSON.parse, one row per value. No authentication, validation, rules or latest values.
 */
export function bareRows(message: { topic: string; payload: Uint8Array }): TelemetryRow[] {
  const deviceId = message.topic.split('/')[1]!;
  const values = JSON.parse(textOf(message.payload)) as Record<string, number>;
  const ts = new Date();
  return Object.entries(values).map(([variable, value]) => ({ tenantId: 'bench', deviceId, variable, ts, value, text: null }));
}

/** Rows in a table of the time-series store. */
export async function countRows(client: ClickHouseClient, table: string): Promise<number> {
  const result = await client.query({ query: `SELECT count() AS n FROM ${table}`, format: 'JSONEachRow' });
  return Number(((await result.json()) as { n: string }[])[0]!.n);
}

/** The benchmarks' tenant `bench` on a started platform, and its administrator's API: `call` throws on any answer but 200. */
export async function benchTenantApi(platform: Platform) {
  await seedDemoTenant(platform.context, { id: 'bench', name: 'benchco', adminUsername: 'benchco', adminPassword: 'Bench#pw1' });
  const base = platform.url!.replace('localhost', '127.0.0.1');
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ account: 'benchco', password: 'Bench#pw1', agreement: true }),
  });
  const token = ((await login.json()) as { data: { token: string } }).data.token;
  const call = async (method: string, url: string, body: unknown): Promise<any> => {
    const r = await fetch(`${base}${url}`, {
      method,
      headers: { authentication: token, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await r.json()) as { code: number; data: any; msg: string };
    if (json.code !== 200) throw new Error(`${url}: ${json.msg}`);
    return json.data;
  };
  return { base, token, call };
}

/**
 * The bare pipeline the ingest benchmarks measure the platform against: an Aedes of its own whose hook takes
 * `devices/+/telemetry`, parses the JSON (bareRows) and writes the rows through the store's group commit
 * (RowBinary file insert into chDB) into a table without rollups, on the platform's chDB. The PUBACK waits
 * for the insert, as on the platform.
 */
export async function startBarePipeline(platform: Platform, table = 'telemetry_bare') {
  const store = platform.timeseries as ClickHouseTimeSeriesStore;
  const bareStore = new ClickHouseTimeSeriesStore(store.client, 'chdb', table, false);
  await bareStore.migrate();
  const broker = await startEmbeddedMqtt({ port: 0 });
  await broker.onMessage('devices/+/telemetry', async (message) => {
    await bareStore.insertTelemetry(bareRows(message));
  });
  return { url: broker.url, table, close: () => broker.close() };
}

type Api = Awaited<ReturnType<typeof benchTenantApi>>['call'];

/** A published product of the bench tenant with `vars` double properties v1…vN. */
export async function benchProduct(call: Api, code: string, vars: number): Promise<string> {
  const product = await call('POST', '/api/iot/product', { name: code, code, type: 'direct' });
  for (let i = 1; i <= vars; i++)
    await call('PUT', '/api/iot/product/function', {
      productId: product.id,
      function: { type: 'property', name: `v${i}`, identifier: `v${i}`, dataType: { type: 'double' } },
    });
  await call('POST', '/api/iot/product/publish', { id: product.id });
  return product.id as string;
}

/** `count` devices of the product registered through the API (a few requests at once), with their secrets. */
export async function registerDevices(
  call: Api,
  productId: string,
  prefix: string,
  count: number,
): Promise<{ sn: string; secret: string }[]> {
  const devices = new Array<{ sn: string; secret: string }>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const i = next++;
        const sn = `${prefix}-${i}`;
        const d = await call('POST', '/api/iot/device', { sn, name: sn, productId });
        devices[i] = { sn, secret: d.secret as string };
      }
    }),
  );
  return devices;
}
