import { createHash, randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { createLookups } from '@iot/infra/read-models/lookups.ts';
import { waitFor } from '../harness/process.ts';
import { tusClient } from '../files/tus.ts';
import { rssPeak, type Figure } from './figure.ts';
import { startOtaBench } from './ota.ts';
import { startOtaDevices } from './ota-devices-child.ts';
import { cpuProfile } from './profile.ts';

const SIZE = 1_048_576;
const MB = SIZE / 2 ** 20;

/**
 * `ota-rollout` (issue 21): `BENCH_OTA_DEVICES` simulated devices (10,000 in the issue) offered a 1 MB file in one
 * wave: half fetch it over HTTP by ranges from their offer's signed link (`otaTask.firmware`), half over MQTT in 64 KB
 * chunks (ThingsBoard's `v2/fw/request/{id}/chunk/{n}`); each then reports done. Figures: devices upgraded per second
 * and MB/s served, from the task's creation to the last device done; the limit, in the same run: the same bytes served
 * from disk by a bare Node HTTP server to the same HTTP client (every device by ranges); the peak RSS and its growth.
 * The devices run in child processes (ota-devices-child.ts), so the RSS and the open files are the platform's alone.
 * What the growth is: `growth_at_peak_mb` (heap or buffers, at the RSS peak); under NODE_OPTIONS=--expose-gc also
 * `heap_retained_mb` (the heap the rollout leaves held after a full collection); BENCH_HEAP_SNAPSHOT=<file> writes a
 * heap snapshot once the devices are done.
 */
export async function benchOtaRollout(): Promise<Figure[]> {
  const count = Number(process.env.BENCH_OTA_DEVICES ?? 10_000);
  const bench = await startOtaBench(count, { OTA_URL_SECRET: 'ota-rollout-bench-secret-0123456789' });
  const content = randomBytes(SIZE);
  const filePath = path.join(os.tmpdir(), `dc-bench-ota-file-${process.pid}.bin`);
  await writeFile(filePath, content);
  let devices: Awaited<ReturnType<typeof startOtaDevices>> | undefined;
  try {
    // The package, uploaded as an operator would (tus), then in the files read model.
    const tus = tusClient(bench.base, bench.token);
    const location = (await tus.create(SIZE, { name: 'fw-2.0.bin', fileType: 'upgrade', version: '2.0' })).headers.get('location')!;
    if ((await tus.patch(location, 0, content)).status !== 204) throw new Error('the package upload failed');
    const fileId = location.split('/').at(-1)!;
    const lookups = createLookups(bench.platform.context.db);
    const file = await waitFor('the package recorded', () => lookups.fileById(bench.tenantId, fileId), 60_000, 200);

    const sha256 = createHash('sha256').update(content).digest('hex');
    const sims = bench.devices.map((d, i) => ({ sn: d.sn, secret: bench.users[i]!.password, overHttp: i % 2 === 0 }));
    devices = await startOtaDevices(bench.mqttUrl, sims, { size: SIZE, sha256 });

    // With --expose-gc, what the rollout leaves held (heap after a full collection) apart from what it churned.
    const collect = (globalThis as { gc?: () => void }).gc;
    collect?.();
    const before = process.memoryUsage();
    const rssBefore = before.rss;
    const rss = rssPeak();
    // What grows: the process's memory by kind when its RSS peaked (heap of objects, or buffers outside the heap).
    let atPeak = before;
    const memory = setInterval(() => {
      const now = process.memoryUsage();
      if (now.rss > atPeak.rss) atPeak = now;
    }, 250);
    memory.unref();
    const stopProfile = await cpuProfile('ota-rollout');
    const started = performance.now();
    await bench.rollout(file, { waitOffered: false });
    await Promise.race([devices.settled(), new Promise((resolve) => setTimeout(resolve, 1_200_000).unref())]);
    const seconds = (performance.now() - started) / 1000;
    await stopProfile();
    const peakMb = rss.stop();
    clearInterval(memory);
    collect?.();
    const retainedMb = collect ? Math.round((process.memoryUsage().heapUsed - before.heapUsed) / 2 ** 20) : null;
    if (process.env.BENCH_HEAP_SNAPSHOT) writeHeapSnapshot(process.env.BENCH_HEAP_SNAPSHOT);
    const counts = await devices.report();

    // The limit: the same file from disk by a bare Node HTTP server, every device's bytes fetched by the same client.
    const server = http.createServer((request, response) => {
      const [from, to] = /bytes=(\d+)-(\d+)/
        .exec(request.headers.range ?? '')!
        .slice(1)
        .map(Number) as [number, number];
      response.writeHead(206, { 'content-length': to - from + 1, 'content-range': `bytes ${from}-${to}/${SIZE}` });
      createReadStream(filePath, { start: from, end: to }).pipe(response);
    });
    // Idle connections kept as long as the platform's HTTP server keeps them (Node's 5 s drops them under the agent's feet).
    server.keepAliveTimeout = 72_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/fw.bin`;
    const bareStarted = performance.now();
    // The rollout's figures stand even when the limit's run fails (then it says why).
    let limitError: string | null = null;
    const bare = await devices.bare(url).catch((error: unknown) => {
      limitError = String(error);
      return { upgraded: 0, failed: count, shaMatches: 0, bytes: 0, firstFailures: [] };
    });
    const bareSeconds = (performance.now() - bareStarted) / 1000;
    await new Promise((resolve) => server.close(resolve));
    const bareMb = bare.bytes / 2 ** 20;
    return [
      {
        bench: 'ota-rollout',
        value: Math.round((counts.upgraded / seconds) * 10) / 10,
        unit: 'devices upgraded/s (1 MB each, half HTTP ranges, half MQTT chunks)',
        limit: limitError ? null : Math.round((count / bareSeconds) * 10) / 10,
        limit_error: limitError,
        limit_of: 'the same file from disk by a bare Node HTTP server, every device by ranges, same client',
        devices: count,
        device_processes: devices.processes,
        upgraded: counts.upgraded,
        failed: counts.failed,
        first_failures: counts.firstFailures,
        seconds: Math.round(seconds * 10) / 10,
        mb_per_s: Math.round((counts.bytes / 2 ** 20 / seconds) * 10) / 10,
        limit_mb_per_s: Math.round((bareMb / bareSeconds) * 10) / 10,
        file_mb: MB,
        sha256_recorded: sha256 === file.sha256,
        sha256_matches: counts.shaMatches,
        limit_sha256_matches: bare.shaMatches,
        rss_mb: peakMb,
        rss_growth_mb: Math.round(peakMb - rssBefore / 2 ** 20),
        growth_at_peak_mb: {
          heap_used: Math.round((atPeak.heapUsed - before.heapUsed) / 2 ** 20),
          heap_total: Math.round((atPeak.heapTotal - before.heapTotal) / 2 ** 20),
          external: Math.round((atPeak.external - before.external) / 2 ** 20),
          array_buffers: Math.round((atPeak.arrayBuffers - before.arrayBuffers) / 2 ** 20),
        },
        heap_retained_mb: retainedMb,
        load_1m: Math.round(os.loadavg()[0]! * 10) / 10,
      },
    ];
  } finally {
    await devices?.stop();
    await bench.stop();
    await rm(filePath, { force: true });
  }
}
