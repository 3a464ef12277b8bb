import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { routes } from '@iot/contracts';
import { urlOf } from '@iot/contracts/http/route.ts';
import type { ClickHouseTimeSeriesStore } from '@iot/infra/timeseries/clickhouse.ts';
import { benchProduct, benchTenantApi, registerDevices, startBenchPlatform } from './bare.ts';
import { rssPeak, type Figure } from './figure.ts';

const run = promisify(execFile);
const DEVICES = 100;
const CONNECTIONS = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 64);

/** POSTs the bodies in `file` to `url` from CONNECTIONS keep-alive connections for `seconds` (load.ts, its own process). */
async function post(url: string, file: string, seconds: number) {
  const { stdout } = await run(process.execPath, [
    '--import',
    'tsx',
    'tests/bench/load.ts',
    url,
    '',
    String(CONNECTIONS),
    String(seconds),
    file,
  ]);
  return JSON.parse(stdout) as { requests: number; errors: number; seconds: number; p99Ms: number };
}

/** Counts the calls (and the time they took) of an object's async methods until `stop`; BENCH_DEBUG prints them. */
function countCalls(target: object, names: string[]) {
  const t = target as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const originals = names.map((name) => [name, t[name]!] as const);
  const counts = new Map<string, { n: number; ms: number; what: Map<string, number> }>();
  for (const [name, original] of originals)
    t[name] = async (...args: unknown[]) => {
      const started = performance.now();
      try {
        return await original.apply(target, args);
      } finally {
        const c = counts.get(name) ?? { n: 0, ms: 0, what: new Map<string, number>() };
        c.n += 1;
        c.ms += performance.now() - started;
        const arg = args[0] as { query?: string; table?: string };
        const key = (arg.query ?? arg.table ?? '').replace(/\s+/g, ' ').slice(0, 60);
        c.what.set(key, (c.what.get(key) ?? 0) + 1);
        counts.set(name, c);
      }
    };
  return {
    /** Restores the methods; how many calls there were (all of them). */
    stop() {
      for (const [name, original] of originals) t[name] = original;
      if (process.env.BENCH_DEBUG)
        for (const [name, c] of counts)
          process.stderr.write(`${name}: ${c.n} calls, ${Math.round(c.ms)} ms ${JSON.stringify([...c.what].slice(0, 8))}\n`);
      return [...counts.values()].reduce((n, c) => n + c.n, 0);
    },
  };
}

/**
 * `ingest-http` (issue 23): single-value reports through the HTTP ingest route (`POST /api/iot/telemetry`, sn and
 * secret, one value each) from 64 keep-alive connections (BENCH_HTTP_CONNECTIONS; api-read's number) of a
 * generator in its own process, 100 devices in turn; the limit is the same values inserted straight into the
 * platform's time-series store (its port's `insertTelemetry`, one value a call, as many calls at once as there
 * are connections), in the same run. The generator's ceiling against an HTTP server that reads the body and
 * answers at once is in the line.
 */
export async function benchIngestHttp(): Promise<Figure[]> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 15);
  const bench = await startBenchPlatform('http');
  const { dir, platform } = bench;
  const answer = Buffer.from(JSON.stringify({ code: 200, msg: 'ok', data: { accepted: 1, rejected: [] } }));
  const sink = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length }).end(answer));
  });
  try {
    const { base, call } = await benchTenantApi(platform);
    const productId = await benchProduct(call, 'BENCH-HTTP', 1);
    const devices = await registerDevices(call, productId, 'HTTP', DEVICES);
    await platform.context.awaitProjections?.();
    const bodies = path.join(dir, 'bodies.jsonl');
    await writeFile(
      bodies,
      Array.from({ length: 10_000 }, (_, i) => {
        const d = devices[i % DEVICES]!;
        return JSON.stringify({ sn: d.sn, secret: d.secret, data: { v1: i / 10 } });
      }).join('\n'),
    );
    const store = platform.timeseries as ClickHouseTimeSeriesStore;
    const count = async () => {
      const result = await store.client.query({
        query: "SELECT count() AS n FROM telemetry WHERE tenant_id = 'bench' AND variable = 'v1'",
        format: 'JSONEachRow',
      });
      return Number(((await result.json()) as { n: string }[])[0]!.n);
    };

    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    const reportPath = urlOf(routes['telemetry.report']);
    const ceiling = await post(`http://127.0.0.1:${(sink.address() as AddressInfo).port}${reportPath}`, bodies, seconds);

    const url = base + reportPath;
    await post(url, bodies, 1); // warm-up
    await platform.ingest!.flush();
    const before = await count();
    const rss = rssPeak();
    // Statements the store ran while the route was measured: the inserts, and any other of the route's own.
    const calls = countCalls(store.client, ['query', 'insert', 'command', 'exec']);
    const route = await post(url, bodies, seconds);
    const routeStatements = calls.stop();
    const rssMb = rss.stop();
    await platform.ingest!.flush();
    const stored = (await count()) - before;
    const accepted = route.requests - route.errors;

    // The limit: the same single values, straight into the store through its port, as many at once.
    const directBefore = await count();
    const deadline = performance.now() + seconds * 1000;
    const started = performance.now();
    const directCalls = countCalls(store.client, ['query', 'insert', 'command', 'exec']);
    let direct = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, lane) => {
        for (let i = lane; performance.now() < deadline; i += CONNECTIONS) {
          const deviceId = devices[i % DEVICES]!.sn;
          await store.insertTelemetry([{ tenantId: 'bench', deviceId, variable: 'v1', ts: new Date(), value: i / 10, text: null }]);
          direct += 1;
        }
      }),
    );
    const directSeconds = (performance.now() - started) / 1000;
    const directStatements = directCalls.stop();
    const directStored = (await count()) - directBefore;

    const rate = accepted / route.seconds;
    const limit = direct / directSeconds;
    const ceilingRate = (ceiling.requests - ceiling.errors) / ceiling.seconds;
    return [
      {
        bench: 'ingest-http',
        value: Math.round(rate),
        unit: 'values/s',
        limit: Math.round(limit),
        limit_of: `the same single values inserted straight into the time-series store (its port, ${CONNECTIONS} at once)`,
        ratio: Number((rate / limit).toFixed(3)),
        p99_ms: Math.round(route.p99Ms * 10) / 10,
        errors: route.errors,
        // Accepted values that are not in the store: must be 0.
        lost: accepted - stored,
        limit_lost: direct - directStored,
        // Values a store statement carried (the group commit's batches), through the route and straight.
        values_per_statement: Math.round(accepted / Math.max(1, routeStatements)),
        limit_values_per_statement: Math.round(direct / Math.max(1, directStatements)),
        gen_ceiling: Math.round(ceilingRate),
        ...(ceilingRate < 2 * rate
          ? { note: `the generator's ceiling (${Math.round(ceilingRate)} requests/s) is below twice this rate` }
          : {}),
        connections: CONNECTIONS,
        rss_mb: rssMb,
        seconds,
      },
    ];
  } finally {
    sink.close();
    await bench.stop();
  }
}
