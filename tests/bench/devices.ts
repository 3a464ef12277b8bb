import { createReadStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { benchTenantApi, startBenchPlatform } from './bare.ts';
import { cpuSpent, type Figure } from './figure.ts';
import { cpuProfile } from './profile.ts';
import { bringDevicesOnline, importDeviceCsv, writeDeviceCsv } from './seed-devices.ts';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 100_000);
const SAMPLES = 300;

const p95 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length * 0.95)]!;
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** 9 groups under one root: 3 regions with 2 sites each; devices spread over the sites and regions. */
async function groups(call: Api) {
  const make = async (name: string, parentId: string | null) =>
    (await call('group.create', { body: { name, type: 'office', parentId } })).id;
  const root = await make('全国', null);
  const regions = [];
  for (const r of ['华东', '华南', '华北']) {
    const region = await make(r, root);
    regions.push({ id: region, name: r, sites: [await make(`${r}一站`, region), await make(`${r}二站`, region)] });
  }
  return regions;
}

type Api = Awaited<ReturnType<typeof benchTenantApi>>['call'];

/**
 * `device-import`, `device-list`, `device-as-of` (issue 10), on one embedded PostgreSQL and the platform over
 * real HTTP: 100,000 devices imported from a CSV file (events appended and the device list's read model
 * built) against a raw `COPY` of the same rows into one table; then the list of that tenant filtered by group
 * subtree and status against the same SQL run directly; then the as-of of a device with 1,000 events.
 */
export async function benchDevices(): Promise<Figure[]> {
  const bench = await startBenchPlatform('devices');
  const { platform, dir } = bench;
  const raw = new pg.Client({ connectionString: bench.pgUrl });
  await raw.connect();
  const figures: Figure[] = [];
  try {
    const { base, token, call } = await benchTenantApi(platform);
    const regions = await groups(call);
    const product = await call('product.create', { body: { name: '基准传感器', code: 'BENCH', type: 'direct' } });
    await call('product.defineFunction', {
      body: { productId: product.id, function: { type: 'property', name: '温度', identifier: 'temperature', dataType: { type: 'float' } } },
    });
    await call('product.publish', { body: { id: product.id } });
    await platform.context.awaitProjections?.();

    // The file: 100,000 rows, groups by name, coordinates and tags, as an operator's export would be.
    const file = path.join(dir, 'devices.csv');
    const sites = regions.flatMap((r) => r.sites.map((s, i) => ({ id: s, name: `${r.name}${i === 0 ? '一站' : '二站'}` })));
    const bytes = await writeDeviceCsv(
      file,
      'sn,name,product,group,lng,lat,address,version,tags',
      (function* () {
        for (let i = 0; i < DEVICES; i++) {
          const site = sites[i % sites.length]!;
          yield `BENCH-${String(i).padStart(7, '0')},设备 ${i},BENCH,${site.name},${(121 + (i % 1000) / 1000).toFixed(3)},${(31 + (i % 997) / 1000).toFixed(3)},上海市,1.0.${i % 10},a;b`;
        }
      })(),
    );

    // The limit: the same rows COPYed into one table, no events, no claims, no read model.
    await raw.query(
      `create table bench_copy (sn text, name text, product text, grp text, lng float8, lat float8, address text, version text, tags text)`,
    );
    const copyStarted = performance.now();
    await pipeline(
      createReadStream(file, { start: 3 + 'sn,name,product,group,lng,lat,address,version,tags\n'.length }),
      raw.query(copyFrom('copy bench_copy from stdin with (format csv)')),
    );
    const copySeconds = (performance.now() - copyStarted) / 1000;

    // rss() alone: memoryUsage() walks the heap's spaces too, a cost the import would be charged 20 times a second.
    let peakRss = process.memoryUsage.rss();
    const rssBefore = peakRss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
    }, 50);
    // Where the memory goes, twice a second: V8's heap (used and reserved) and memory outside it (buffers, chDB's).
    const before = process.memoryUsage();
    const peaks = { heapUsed: before.heapUsed, heapTotal: before.heapTotal, external: before.external, arrayBuffers: before.arrayBuffers };
    const heapSampler = setInterval(() => {
      const now = process.memoryUsage();
      for (const key of Object.keys(peaks) as (keyof typeof peaks)[]) peaks[key] = Math.max(peaks[key], now[key]);
    }, 500);
    // BENCH_HEAP_GC=1 (with NODE_OPTIONS=--expose-gc): the heap still held after a full collection, every second, on stderr.
    const gc = (globalThis as { gc?: () => void }).gc;
    const heapGc =
      process.env.BENCH_HEAP_GC && gc
        ? setInterval(() => {
            gc();
            process.stderr.write(`[heap after gc] ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MB\n`);
          }, 1000)
        : null;
    // BENCH_CPU_PROF=<dir>: the platform's profile (it runs in this process) during the import only.
    const stopProfile = await cpuProfile('device-import');
    const cpu = cpuSpent();
    const started = performance.now();
    await importDeviceCsv({ base, token }, raw, file, { jobId: 'bench-import-1', devices: DEVICES });
    const seconds = (performance.now() - started) / 1000;
    const used = cpu.stop();
    await stopProfile();
    clearInterval(sampler);
    clearInterval(heapSampler);
    if (heapGc) clearInterval(heapGc);
    figures.push({
      bench: 'device-import',
      value: Math.round(DEVICES / seconds),
      unit: 'devices/s',
      limit: Math.round(DEVICES / copySeconds),
      limit_of: 'raw postgres COPY of the same rows into one table',
      seconds: round(seconds),
      peak_rss_mb: Math.round(peakRss / 2 ** 20),
      rss_growth_mb: Math.round((peakRss - rssBefore) / 2 ** 20),
      rss_before_mb: Math.round(rssBefore / 2 ** 20),
      // Peaks during the import, and before it: the V8 heap used and reserved, and what lives outside it.
      heap_used_mb: `${Math.round(before.heapUsed / 2 ** 20)} -> ${Math.round(peaks.heapUsed / 2 ** 20)}`,
      heap_total_mb: `${Math.round(before.heapTotal / 2 ** 20)} -> ${Math.round(peaks.heapTotal / 2 ** 20)}`,
      external_mb: `${Math.round(before.external / 2 ** 20)} -> ${Math.round(peaks.external / 2 ** 20)}`,
      array_buffers_mb: `${Math.round(before.arrayBuffers / 2 ** 20)} -> ${Math.round(peaks.arrayBuffers / 2 ** 20)}`,
      file_mb: round(bytes / 2 ** 20, 2),
      // CPU per 1,000 devices, of the platform's process and of it with PostgreSQL: comparable on a busy machine.
      cpu_ms_per_1k: Math.round((used.node_s * 1000 * 1000) / DEVICES),
      cpu_ms_per_1k_with_pg: used.total_s === null ? null : Math.round((used.total_s * 1000 * 1000) / DEVICES),
    });

    // BENCH_IMPORT_ONLY=1: the import's figure alone, for profiling it (the list and as-of take minutes on a busy machine).
    if (process.env.BENCH_IMPORT_ONLY) return figures;

    // device-list: a region's subtree, online only, sorted by name, page 20 (30% of the fleet is online).
    // Through presence events, not an update of the rows: the dashboard's counters in this process stay right.
    // hashtext is signed, so it is masked: unmasked, every negative hash counted and about 65% went online.
    await bringDevicesOnline(platform, raw, { tenantId: 'bench', where: '((hashtext(id) & 2147483647) % 10) < 3' });
    // What autovacuum does after a bulk insert (its insert threshold): statistics and the visibility map.
    await raw.query('vacuum analyze rm_devices');
    const region = regions[0]!;
    const listQuery = { groupId: region.id, status: 'online', sort: 'name', order: 'asc', pageSize: 20, page: 3 };
    const timed = async (fn: () => Promise<unknown>) => {
      const t = performance.now();
      await fn();
      return performance.now() - t;
    };
    for (let i = 0; i < 20; i++) await call('device.list', { query: listQuery });
    const apiTimes = [];
    for (let i = 0; i < SAMPLES; i++) apiTimes.push(await timed(() => call('device.list', { query: listQuery })));
    const subtree = [region.id, ...region.sites];
    const sql = `select d.*, (select name from rm_products p where p.id = d.product_id) as product_name,
        (select name from rm_groups g where g.id = d.group_id) as group_name,
        (select name from rm_devices w where w.id = d.gateway_id) as gateway_name,
        (select username from rm_users u where u.id = d.created_by) as created_by_name,
        (select count(*)::int from rm_devices d where d.tenant_id = $1 and d.group_id = any($2) and d.status = $3) as page_total__
      from rm_devices d where d.tenant_id = $1 and d.group_id = any($2) and d.status = $3
      order by lower(d.name) asc limit 20 offset 40`;
    if (process.env.BENCH_EXPLAIN)
      process.stderr.write(
        `${(await raw.query(`explain (analyze, buffers) ${sql}`, ['bench', subtree, 'online'])).rows.map((r) => r['QUERY PLAN']).join('\n')}\n`,
      );
    const sqlTimes = [];
    for (let i = 0; i < SAMPLES; i++) sqlTimes.push(await timed(() => raw.query(sql, ['bench', subtree, 'online'])));
    figures.push({
      bench: 'device-list',
      value: round(p95(apiTimes)),
      unit: 'ms p95',
      limit: round(p95(sqlTimes)),
      limit_of: 'the same SQL run directly',
      devices: DEVICES,
      goal_ms: 30,
    });

    // device-as-of: a device with 1,000 events, rebuilt as it was halfway.
    const device = await call('device.create', { body: { sn: 'BENCH-HISTORY', name: 'history 0', productId: product.id } });
    let halfway = '';
    for (let i = 1; i < 1000; i++) {
      await call('device.update', { body: { id: device.id, name: `history ${i}`, tags: [`t${i % 7}`] } });
      if (i === 500) halfway = new Date().toISOString();
    }
    const asOfQuery = { id: device.id, at: halfway };
    const check = await call('device.asOf', { query: asOfQuery });
    if (check.version < 400 || check.version > 600) throw new Error(`as-of landed at version ${check.version}`);
    const asOfTimes = [];
    const asOfCpu = cpuSpent();
    for (let i = 0; i < SAMPLES / 3; i++) asOfTimes.push(await timed(() => call('device.asOf', { query: asOfQuery })));
    const asOfUsed = asOfCpu.stop();
    const stream = `device-bench.${device.id}`;
    const readTimes = [];
    for (let i = 0; i < SAMPLES / 3; i++)
      readTimes.push(await timed(() => platform.context.store.readStream(stream, { toTime: new Date(halfway) })));
    figures.push({
      bench: 'device-as-of',
      value: round(p95(asOfTimes)),
      unit: 'ms p95',
      limit: round(p95(readTimes)),
      limit_of: "reading the device's stream up to the instant, no HTTP and no fold",
      events: 1000,
      goal_ms: 50,
      // CPU of one as-of, of the platform's process and of it with PostgreSQL: comparable on a busy machine.
      cpu_ms: round((asOfUsed.node_s * 1000) / (SAMPLES / 3)),
      cpu_ms_with_pg: asOfUsed.total_s === null ? null : round((asOfUsed.total_s * 1000) / (SAMPLES / 3)),
    });
    return figures;
  } finally {
    await raw.end();
    await bench.stop();
  }
}
