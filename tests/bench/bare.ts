import type { ClickHouseClient } from '@clickhouse/client';
import { seedDemoTenant, type Platform } from '@iot/infra/platform.ts';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';

/**
 * What every bare pipeline of the ingest benchmarks does with a message, and nothing more: the device from the topic
 * (`devices/<id>/...`), JSON.parse, one row per value. No authentication, validation, rules or latest values.
 */
export function bareRows(message: { topic: string; payload: Buffer }): TelemetryRow[] {
  const deviceId = message.topic.split('/')[1]!;
  const values = JSON.parse(message.payload.toString('utf8')) as Record<string, number>;
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
