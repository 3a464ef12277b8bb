import { createHash, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { MqttClient } from 'mqtt';
import { createLookups } from '@iot/infra/read-models/lookups.ts';
import { waitFor } from '../harness/process.ts';
import { tusClient } from '../files/tus.ts';
import { rssPeak, type Figure } from './figure.ts';
import { connectAll, startOtaBench } from './ota.ts';
import { cpuProfile } from './profile.ts';

const SIZE = 1_048_576;
/** HTTP devices fetch the file in ranges of this size (a resumable download's steps); MQTT devices ask chunks of it. */
const RANGE = 256 * 1024;
const CHUNK = 64 * 1024;
const MB = SIZE / 2 ** 20;

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** GETs `url`'s bytes `from`..`to` (inclusive) over the shared keep-alive agent; answers how many bytes came. */
function getRange(url: string, from: number, to: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, headers: { range: `bytes=${from}-${to}` } }, (response) => {
      let bytes = 0;
      response.on('data', (part: Buffer) => (bytes += part.length));
      response.on('end', () => (response.statusCode === 206 ? resolve(bytes) : reject(new Error(`HTTP ${response.statusCode}`))));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** A device's download over HTTP: the file range by range; answers the bytes fetched. */
async function downloadByRanges(url: string): Promise<number> {
  let bytes = 0;
  for (let from = 0; from < SIZE; from += RANGE) bytes += await getRange(url, from, Math.min(from + RANGE, SIZE) - 1);
  return bytes;
}

/**
 * `ota-rollout` (issue 21): `BENCH_OTA_DEVICES` simulated devices (10,000 in the issue) offered a 1 MB file in one
 * wave: half fetch it over HTTP by ranges from their offer's signed link (`otaTask.firmware`), half over MQTT in 64 KB
 * chunks (ThingsBoard's `v2/fw/request/{id}/chunk/{n}`); each then reports done. Figures: devices upgraded per second
 * and MB/s served, from the task's creation to the last device done; the limit, in the same run: the same bytes served
 * from disk by a bare Node HTTP server to the same HTTP client (every device by ranges); the peak RSS and its growth.
 */
export async function benchOtaRollout(): Promise<Figure[]> {
  const count = Number(process.env.BENCH_OTA_DEVICES ?? 10_000);
  const bench = await startOtaBench(count, { OTA_URL_SECRET: 'ota-rollout-bench-secret-0123456789' });
  const content = randomBytes(SIZE);
  const filePath = path.join(os.tmpdir(), `dc-bench-ota-file-${process.pid}.bin`);
  await writeFile(filePath, content);
  let clients: MqttClient[] = [];
  try {
    // The package, uploaded as an operator would (tus), then in the files read model.
    const tus = tusClient(bench.base, bench.token);
    const location = (await tus.create(SIZE, { name: 'fw-2.0.bin', fileType: 'upgrade', version: '2.0' })).headers.get('location')!;
    if ((await tus.patch(location, 0, content)).status !== 204) throw new Error('the package upload failed');
    const fileId = location.split('/').at(-1)!;
    const lookups = createLookups(bench.platform.context.db);
    const file = await waitFor('the package recorded', () => lookups.fileById(bench.tenantId, fileId), 60_000, 200);

    clients = await connectAll(bench.mqttUrl, bench.users);
    let done = 0;
    let served = 0;
    const failures: string[] = [];
    const finished = new Promise<void>((resolve) => {
      const check = () => done + failures.length >= count && resolve();
      clients.forEach((client, d) => {
        const sn = bench.devices[d]!.sn;
        const overHttp = d % 2 === 0;
        let taskId = '';
        let chunks = 0;
        let got = 0;
        const report = async () => {
          if (got !== SIZE) throw new Error(`${got} bytes of ${SIZE}`);
          await client.publishAsync(`devices/${sn}/ota/${taskId}/progress`, JSON.stringify({ status: 'done', version: '2.0' }), { qos: 1 });
          done += 1;
          check();
        };
        const fail = (error: unknown) => {
          failures.push(`${sn}: ${error instanceof Error ? error.message : String(error)}`);
          check();
        };
        client.on('message', (topic, payload) => {
          if (topic.startsWith('v2/fw/response/')) {
            served += payload.length;
            got += payload.length;
            chunks += 1;
            if (payload.length === CHUNK && chunks * CHUNK < SIZE)
              void client.publishAsync(`v2/fw/request/${sn}/chunk/${chunks}`, String(CHUNK), { qos: 1 }).catch(fail);
            else void report().catch(fail);
            return;
          }
          const offer = JSON.parse(payload.toString()) as { identifier: string; params: { taskId: string; url: string | null } };
          if (offer.identifier !== 'ota' || taskId) return;
          taskId = offer.params.taskId;
          if (overHttp)
            void downloadByRanges(offer.params.url!.replace('localhost', '127.0.0.1'))
              .then((bytes) => ((served += bytes), (got = bytes), report()))
              .catch(fail);
          else void client.publishAsync(`v2/fw/request/${sn}/chunk/0`, String(CHUNK), { qos: 1 }).catch(fail);
        });
      });
    });
    await Promise.all(
      clients.map((client, d) =>
        client.subscribeAsync(
          d % 2 === 0
            ? [`devices/${bench.devices[d]!.sn}/command/#`]
            : [`devices/${bench.devices[d]!.sn}/command/#`, 'v2/fw/response/+/chunk/+'],
          { qos: 1 },
        ),
      ),
    );

    const rssBefore = process.memoryUsage.rss();
    const rss = rssPeak();
    const stopProfile = await cpuProfile('ota-rollout');
    const started = performance.now();
    await bench.rollout(file, { waitOffered: false });
    await Promise.race([finished, new Promise((resolve) => setTimeout(resolve, 1_200_000).unref())]);
    const seconds = (performance.now() - started) / 1000;
    await stopProfile();
    const peakMb = rss.stop();

    // The limit: the same file from disk by a bare Node HTTP server, every device's bytes fetched by the same client.
    const server = http.createServer((request, response) => {
      const [from, to] = /bytes=(\d+)-(\d+)/
        .exec(request.headers.range ?? '')!
        .slice(1)
        .map(Number) as [number, number];
      response.writeHead(206, { 'content-length': to - from + 1, 'content-range': `bytes ${from}-${to}/${SIZE}` });
      createReadStream(filePath, { start: from, end: to }).pipe(response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/fw.bin`;
    const bareStarted = performance.now();
    const bareBytes = await Promise.all(Array.from({ length: count }, () => downloadByRanges(url)));
    const bareSeconds = (performance.now() - bareStarted) / 1000;
    await new Promise((resolve) => server.close(resolve));
    const sample = createHash('sha256').update(content).digest('hex') === file.sha256;
    const bareMb = bareBytes.reduce((a, b) => a + b, 0) / 2 ** 20;
    return [
      {
        bench: 'ota-rollout',
        value: Math.round((done / seconds) * 10) / 10,
        unit: 'devices upgraded/s (1 MB each, half HTTP ranges, half MQTT chunks)',
        limit: Math.round((count / bareSeconds) * 10) / 10,
        limit_of: 'the same file from disk by a bare Node HTTP server, every device by ranges, same client',
        devices: count,
        upgraded: done,
        failed: failures.length,
        first_failures: failures.slice(0, 3),
        seconds: Math.round(seconds * 10) / 10,
        mb_per_s: Math.round((served / 2 ** 20 / seconds) * 10) / 10,
        limit_mb_per_s: Math.round((bareMb / bareSeconds) * 10) / 10,
        file_mb: MB,
        sha256_matches: sample,
        rss_mb: peakMb,
        rss_growth_mb: Math.round(peakMb - rssBefore / 2 ** 20),
        load_1m: Math.round(os.loadavg()[0]! * 10) / 10,
      },
    ];
  } finally {
    await Promise.all(clients.map((c) => c.endAsync(true).catch(() => {})));
    agent.destroy();
    await bench.stop();
  }
}
