import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { routes } from '@iot/contracts';
import { urlOf } from '@iot/contracts/http/route.ts';
import type { ClickHouseTimeSeriesStore } from '@iot/infra/timeseries/clickhouse.ts';
import { benchProduct, benchTenantApi, registerDevices, startBenchPlatform } from './bare.ts';
import { rssPeak, type Figure } from './figure.ts';
import { merged, percentileMs } from './latency.ts';
import { cpuProfile } from './profile.ts';

const run = promisify(execFile);
const DEVICES = 100;
/** The connection counts swept, one figure each (a list: `64,256,1024`). */
const CONNECTIONS = (process.env.BENCH_HTTP_CONNECTIONS ?? '64,256,1024').split(',').map(Number);
/** Generator processes, the connections split between them. */
const PROCS = Math.max(1, Number(process.env.BENCH_HTTP_PROCS ?? 4));
/**
 * BENCH_HTTP_VIA_FASTIFY=1: each step also posts to the route's URL with an empty query, which the fast path in front
 * of Fastify leaves to Fastify's routing (how every report was served before issue 23): `via_fastify_*` in each line.
 */
const VIA_FASTIFY = process.env.BENCH_HTTP_VIA_FASTIFY === '1';
/** Requests in flight a connection (load.ts reads it from the environment): the limit inserts as many at once. */
const PIPELINE = Math.max(1, Number(process.env.BENCH_HTTP_PIPELINE ?? 1));

/**
 * POSTs the bodies in `file` to `url` from `connections` keep-alive connections for `seconds`, spread over PROCS
 * generator processes (load.ts); their counts and latency histograms added up.
 */
async function post(url: string, file: string, seconds: number, connections: number) {
  const procs = Math.min(PROCS, connections);
  const results = await Promise.all(
    Array.from({ length: procs }, async (_, p) => {
      const share = Math.floor(connections / procs) + (p < connections % procs ? 1 : 0);
      const args = ['--import', 'tsx', 'tests/bench/load.ts', url, '', String(share), String(seconds), file];
      const { stdout } = await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
      return JSON.parse(stdout) as { requests: number; errors: number; seconds: number; histogram: string };
    }),
  );
  return {
    requests: results.reduce((n, r) => n + r.requests, 0),
    errors: results.reduce((n, r) => n + r.errors, 0),
    seconds: Math.max(...results.map((r) => r.seconds)),
    p99Ms: percentileMs(merged(results.map((r) => r.histogram)), 99),
  };
}

const cpuUs = (usage: NodeJS.CpuUsage) => usage.user + usage.system;

/**
 * The generator's ceiling target: a raw-socket HTTP/1.1 server that reads each request (its content-length) and
 * answers it at once with pre-encoded bytes, dropping the body, so that what the generator reaches is its own rate.
 */
function dropSink(answerBody: Buffer) {
  const answer = Buffer.concat([
    Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${answerBody.length}\r\n\r\n`),
    answerBody,
  ]);
  const CRLF2 = Buffer.from('\r\n\r\n');
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let at = 0;
      let answers = 0;
      for (;;) {
        const headEnd = pending.indexOf(CRLF2, at);
        if (headEnd < 0) break;
        const length = /\r\ncontent-length: *(\d+)/i.exec(pending.toString('latin1', at, headEnd));
        const end = headEnd + 4 + Number(length?.[1] ?? 0);
        if (end > pending.length) break;
        answers += 1;
        at = end;
      }
      pending = pending.subarray(at);
      if (answers > 0) socket.write(answers === 1 ? answer : Buffer.concat(Array.from({ length: answers }, () => answer)));
    });
  });
  return {
    server,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
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
    /** The calls' summed time (ms), from call to answer. */
    ms: () => [...counts.values()].reduce((n, c) => n + c.ms, 0),
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
 * secret, one value each), 100 devices in turn, from keep-alive connections of a raw-socket generator (load.ts) in
 * PROCS processes of its own (PIPELINE requests in flight a connection), at each connection count of
 * BENCH_HTTP_CONNECTIONS (one line each: a request waits for its value's insert, so the route's rate is bounded by
 * the requests in flight over the insert's latency); the limit is the same values inserted straight into the
 * platform's time-series store (its port's `insertTelemetry`, one value a call, as many calls at once as requests
 * are in flight), in the same run. The generator's ceiling, against a raw
 * sink that answers each request at once, at the largest connection count, is in every line.
 */
export async function benchIngestHttp(): Promise<Figure[]> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 15);
  const bench = await startBenchPlatform('http');
  const { dir, platform } = bench;
  const sink = dropSink(Buffer.from(JSON.stringify({ code: 200, msg: 'ok', data: { accepted: 1, rejected: [] } })));
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

    await new Promise<void>((resolve) => sink.server.listen(0, '127.0.0.1', resolve));
    const reportPath = urlOf(routes['telemetry.report']);
    const sinkUrl = `http://127.0.0.1:${(sink.server.address() as AddressInfo).port}${reportPath}`;
    const ceiling = await post(sinkUrl, bodies, seconds, Math.max(...CONNECTIONS));
    sink.close();
    const ceilingRate = (ceiling.requests - ceiling.errors) / ceiling.seconds;

    const url = base + reportPath;
    await post(url, bodies, 1, CONNECTIONS[0]!); // warm-up
    const figures: Figure[] = [];
    for (const connections of CONNECTIONS) {
      await platform.ingest!.flush();
      const before = await count();
      const rss = rssPeak();
      // Statements the store ran while the route was measured: the inserts, and any other of the route's own.
      const calls = countCalls(store.client, ['query', 'insert', 'command', 'exec']);
      // BENCH_CPU_PROF: the platform's profile while the route is measured (the generator runs in processes of its own).
      const stopProfile = await cpuProfile(`ingest-http-${connections}`);
      // The platform process's CPU time (all its threads, chDB's too) a value on either path: what a request costs,
      // counted in CPU rather than wall time, so that a loaded machine inflates neither.
      const routeCpu = process.cpuUsage();
      const route = await post(url, bodies, seconds, connections);
      const routeCpuUs = cpuUs(process.cpuUsage(routeCpu));
      await stopProfile();
      const routeStatements = calls.stop();
      const rssMb = rss.stop();
      await platform.ingest!.flush();
      const stored = (await count()) - before;
      const accepted = route.requests - route.errors;

      // The limit: the same single values, straight into the store through its port, as many at once as in flight.
      const lanes = connections * PIPELINE;
      const directBefore = await count();
      const deadline = performance.now() + seconds * 1000;
      const started = performance.now();
      const directCalls = countCalls(store.client, ['query', 'insert', 'command', 'exec']);
      const directCpu = process.cpuUsage();
      let direct = 0;
      await Promise.all(
        Array.from({ length: lanes }, async (_, lane) => {
          for (let i = lane; performance.now() < deadline; i += lanes) {
            const deviceId = devices[i % DEVICES]!.sn;
            await store.insertTelemetry([{ tenantId: 'bench', deviceId, variable: 'v1', ts: new Date(), value: i / 10, text: null }]);
            direct += 1;
          }
        }),
      );
      const directSeconds = (performance.now() - started) / 1000;
      const directCpuUs = cpuUs(process.cpuUsage(directCpu));
      const directStatements = directCalls.stop();
      const directStored = (await count()) - directBefore;

      let viaFastify: Record<string, number> = {};
      if (VIA_FASTIFY) {
        const cpu = process.cpuUsage();
        const slow = await post(`${url}?`, bodies, seconds, connections);
        const slowAccepted = slow.requests - slow.errors;
        viaFastify = {
          via_fastify_value: Math.round(slowAccepted / slow.seconds),
          via_fastify_cpu_us_per_value: Math.round(cpuUs(process.cpuUsage(cpu)) / Math.max(1, slowAccepted)),
          via_fastify_errors: slow.errors,
        };
      }
      const rate = accepted / route.seconds;
      const limit = direct / directSeconds;
      figures.push({
        bench: 'ingest-http',
        value: Math.round(rate),
        unit: 'values/s',
        limit: Math.round(limit),
        limit_of: `the same single values inserted straight into the time-series store (its port, ${lanes} at once)`,
        ratio: Number((rate / limit).toFixed(3)),
        p99_ms: route.p99Ms,
        errors: route.errors,
        // Accepted values that are not in the store: must be 0.
        lost: accepted - stored,
        limit_lost: direct - directStored,
        // Values a store statement carried (the group commit's batches), through the route and straight.
        values_per_statement: Math.round(accepted / Math.max(1, routeStatements)),
        limit_values_per_statement: Math.round(direct / Math.max(1, directStatements)),
        // CPU microseconds of the platform process a value, through the route and straight.
        cpu_us_per_value: Math.round(routeCpuUs / Math.max(1, accepted)),
        limit_cpu_us_per_value: Math.round(directCpuUs / Math.max(1, direct)),
        // Store statements a second on either path: the insert cycle.
        statements_per_s: Number((routeStatements / route.seconds).toFixed(1)),
        limit_statements_per_s: Number((directStatements / directSeconds).toFixed(1)),
        // A statement's time from call to answer (chDB runs one at a time: a rollup's statements delay the inserts).
        ms_per_statement: Math.round(calls.ms() / Math.max(1, routeStatements)),
        limit_ms_per_statement: Math.round(directCalls.ms() / Math.max(1, directStatements)),
        gen_ceiling: Math.round(ceilingRate),
        gen_procs: Math.min(PROCS, Math.max(...CONNECTIONS)),
        pipeline: PIPELINE,
        ...(ceilingRate < 2 * rate
          ? { note: `the generator's ceiling (${Math.round(ceilingRate)} requests/s) is below twice this rate` }
          : {}),
        ...viaFastify,
        connections,
        rss_mb: rssMb,
        seconds,
      });
    }
    return figures;
  } finally {
    sink.close();
    await bench.stop();
  }
}
