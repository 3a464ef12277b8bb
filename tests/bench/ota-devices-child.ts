/**
 * A process of simulated devices for `ota-rollout` (issue 21), forked by the bench (startOtaDevices) so that the
 * devices' sockets and CPU are not the platform's: 10,000 devices and the platform in one process need more than the
 * container's 20,000 open files. Each process holds its share of the devices as MQTT.js clients; offered the rollout,
 * a device fetches the 1 MB package over HTTP by ranges from its signed link (even devices) or in ThingsBoard MQTT
 * chunks (odd devices), hashes what it got, and reports done. Driven over IPC: `connect`, then `settled` is pushed once
 * every device of the process has upgraded or failed; `report` answers the counts so far; `bare` fetches every
 * device's bytes by ranges from the limit's server; `stop` ends the process. Prints nothing.
 */
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { cpus } from 'node:os';
import { connectAsync, type MqttClient } from 'mqtt';

/** HTTP devices fetch the file in ranges of this size (a resumable download's steps); MQTT devices ask chunks of it. */
export const RANGE = 256 * 1024;
export const CHUNK = 64 * 1024;

/** What a process's devices did: upgraded (done acknowledged), failed, how many got bytes whose SHA-256 matched, bytes served. */
export interface DeviceCounts {
  upgraded: number;
  failed: number;
  shaMatches: number;
  bytes: number;
  firstFailures: string[];
}

interface Device {
  sn: string;
  secret: string;
  overHttp: boolean;
}
type Request =
  | { id: number; op: 'connect'; mqttUrl: string; devices: Device[]; size: number; sha256: string }
  | { id: number; op: 'report' | 'stop' }
  | { id: number; op: 'bare'; url: string };
/** A request before its id (Omit over each member of the union). */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type Answer = { id: number; counts?: DeviceCounts; error?: string } | { settled: DeviceCounts } | { ready: true } | { failed: string };

/**
 * Forks `processes` device processes (BENCH_OTA_PROCS, else one a core and at least 2) and deals `devices` to them in
 * turn; resolves once every device is connected and subscribed. `settled` resolves with every device's counts together.
 */
export async function startOtaDevices(
  mqttUrl: string,
  devices: Device[],
  file: { size: number; sha256: string },
  processes = Number(process.env.BENCH_OTA_PROCS ?? Math.max(2, cpus().length)),
) {
  const children = Array.from({ length: processes }, () => {
    const child = fork(new URL(import.meta.url).pathname, [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, BENCH_OTA_DEVICES_CHILD: '1' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const waiting = new Map<number, (answer: Answer) => void>();
    let settle: (counts: DeviceCounts) => void = () => {};
    const settled = new Promise<DeviceCounts>((resolve) => (settle = resolve));
    const ready = new Promise<void>((resolve, reject) => {
      child.on('message', (answer: Answer) => {
        if ('ready' in answer) resolve();
        else if ('failed' in answer) reject(new Error(`a device process did not start: ${answer.failed}`));
        else if ('settled' in answer) settle(answer.settled);
        else {
          waiting.get(answer.id)?.(answer);
          waiting.delete(answer.id);
        }
      });
      child.once('exit', (code) => reject(new Error(`a device process exited (${code}) before it ran`)));
    });
    let next = 0;
    const ask = (request: WithoutId<Request>) =>
      new Promise<DeviceCounts>((resolve, reject) => {
        const id = ++next;
        waiting.set(id, (answer) => {
          const { error, counts } = answer as { error?: string; counts?: DeviceCounts };
          if (error) reject(new Error(error));
          else resolve(counts!);
        });
        child.send({ ...request, id } as Request);
      });
    return { child, ready, settled, ask };
  });
  await Promise.all(children.map((c) => c.ready));
  await Promise.all(
    children.map((c, p) => c.ask({ op: 'connect', mqttUrl, devices: devices.filter((_, d) => d % processes === p), ...file })),
  );
  return {
    processes,
    /** Every device's counts, once every process has settled. */
    settled: () => Promise.all(children.map((c) => c.settled)).then(sum),
    /** The counts so far. */
    report: () => Promise.all(children.map((c) => c.ask({ op: 'report' }))).then(sum),
    /** Every device's bytes by ranges from `url` (the limit), every process at once. */
    bare: (url: string) => Promise.all(children.map((c) => c.ask({ op: 'bare', url }))).then(sum),
    async stop() {
      await Promise.all(
        children.map(async ({ child, ask }) => {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          await ask({ op: 'stop' }).catch(() => child.kill('SIGKILL'));
          await exited;
        }),
      );
    },
  };
}

function sum(all: DeviceCounts[]): DeviceCounts {
  return all.reduce(
    (a, b) => ({
      upgraded: a.upgraded + b.upgraded,
      failed: a.failed + b.failed,
      shaMatches: a.shaMatches + b.shaMatches,
      bytes: a.bytes + b.bytes,
      firstFailures: [...a.firstFailures, ...b.firstFailures].slice(0, 3),
    }),
    { upgraded: 0, failed: 0, shaMatches: 0, bytes: 0, firstFailures: [] },
  );
}

/** MQTT.js clients, 50 connecting at a time. */
export async function connectAll(url: string, users: Array<{ username: string; password: string }>): Promise<MqttClient[]> {
  const clients: MqttClient[] = [];
  for (let i = 0; i < users.length; i += 50)
    clients.push(
      ...(await Promise.all(
        users.slice(i, i + 50).map(async ({ username, password }) => {
          const c = await connectAsync(url, { username, password, clientId: username, reconnectPeriod: 0 });
          c.on('error', () => {});
          return c;
        }),
      )),
    );
  return clients;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** GETs `url`'s bytes `from`..`to` (inclusive) over the shared keep-alive agent into `hash` (`range.hashed` once any is); answers how many bytes came. */
function getRange(url: string, from: number, to: number, hash: ReturnType<typeof createHash>, range: { hashed: boolean }): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, headers: { range: `bytes=${from}-${to}` } }, (response) => {
      let bytes = 0;
      response.on('data', (part: Buffer) => {
        bytes += part.length;
        range.hashed = true;
        hash.update(part);
      });
      response.on('end', () => (response.statusCode === 206 ? resolve(bytes) : reject(new Error(`HTTP ${response.statusCode}`))));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** Tries at most of a range whose keep-alive connection the server closed as it was reused (ECONNRESET, no byte read). */
const TRIES = 3;

/** A device's download over HTTP: the file range by range; answers the bytes fetched and their SHA-256. */
async function downloadByRanges(url: string, size: number): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for (let from = 0; from < size; from += RANGE)
    for (let tries = 1; ; tries++) {
      const range = { hashed: false };
      try {
        bytes += await getRange(url, from, Math.min(from + RANGE, size) - 1, hash, range);
        break;
      } catch (error) {
        if (tries >= TRIES || range.hashed || (error as NodeJS.ErrnoException).code !== 'ECONNRESET') throw error;
      }
    }
  return { bytes, sha256: hash.digest('hex') };
}

if (process.env.BENCH_OTA_DEVICES_CHILD === '1' && process.send) {
  const send = (answer: Answer) => process.send!(answer);
  const counts: DeviceCounts = { upgraded: 0, failed: 0, shaMatches: 0, bytes: 0, firstFailures: [] };
  let clients: MqttClient[] = [];
  let devices: Device[] = [];

  /** Connects the devices and has each follow its offer; pushes `settled` once every one has upgraded or failed. */
  async function connect(request: Extract<Request, { op: 'connect' }>) {
    const { size, sha256 } = request;
    devices = request.devices;
    clients = await connectAll(
      request.mqttUrl,
      devices.map((d) => ({ username: d.sn, password: d.secret })),
    );
    const check = () => counts.upgraded + counts.failed === devices.length && send({ settled: counts });
    clients.forEach((client, d) => {
      const { sn, overHttp } = devices[d]!;
      let taskId = '';
      let chunks = 0;
      let got = 0;
      const hash = createHash('sha256');
      const report = async (digest: string) => {
        if (got !== size) throw new Error(`${got} bytes of ${size}`);
        if (digest === sha256) counts.shaMatches += 1;
        await client.publishAsync(`devices/${sn}/ota/${taskId}/progress`, JSON.stringify({ status: 'done', version: '2.0' }), { qos: 1 });
        counts.upgraded += 1;
        check();
      };
      const fail = (error: unknown) => {
        counts.failed += 1;
        if (counts.firstFailures.length < 3) counts.firstFailures.push(`${sn}: ${error instanceof Error ? error.message : String(error)}`);
        check();
      };
      client.on('message', (topic, payload) => {
        if (topic.startsWith('v2/fw/response/')) {
          counts.bytes += payload.length;
          got += payload.length;
          hash.update(payload);
          chunks += 1;
          if (payload.length === CHUNK && chunks * CHUNK < size)
            void client.publishAsync(`v2/fw/request/${sn}/chunk/${chunks}`, String(CHUNK), { qos: 1 }).catch(fail);
          else void report(hash.digest('hex')).catch(fail);
          return;
        }
        const offer = JSON.parse(payload.toString()) as { identifier: string; params: { taskId: string; url: string | null } };
        if (offer.identifier !== 'ota' || taskId) return;
        taskId = offer.params.taskId;
        if (overHttp)
          void downloadByRanges(offer.params.url!.replace('localhost', '127.0.0.1'), size)
            .then((result) => ((counts.bytes += result.bytes), (got = result.bytes), report(result.sha256)))
            .catch(fail);
        else void client.publishAsync(`v2/fw/request/${sn}/chunk/0`, String(CHUNK), { qos: 1 }).catch(fail);
      });
    });
    await Promise.all(
      clients.map((client, d) => {
        const { sn, overHttp } = devices[d]!;
        return client.subscribeAsync(overHttp ? [`devices/${sn}/command/#`] : [`devices/${sn}/command/#`, 'v2/fw/response/+/chunk/+'], {
          qos: 1,
        });
      }),
    );
  }

  /** The limit's side: every device's bytes by ranges from the bare server, all at once over the shared agent. */
  async function bare(url: string, size: number, sha256: string): Promise<DeviceCounts> {
    const results = await Promise.all(devices.map(() => downloadByRanges(url, size)));
    return {
      upgraded: results.length,
      failed: 0,
      shaMatches: results.filter((r) => r.sha256 === sha256).length,
      bytes: results.reduce((a, r) => a + r.bytes, 0),
      firstFailures: [],
    };
  }

  let file = { size: 0, sha256: '' };
  process.on('message', (request: Request) => {
    const answer = (work: Promise<DeviceCounts | void>) =>
      work
        .then((result) => send({ id: request.id, ...(result ? { counts: result } : {}) }))
        .catch((error: unknown) => send({ id: request.id, error: String(error) }));
    if (request.op === 'connect') {
      file = { size: request.size, sha256: request.sha256 };
      void answer(connect(request));
    } else if (request.op === 'report') void answer(Promise.resolve({ ...counts }));
    else if (request.op === 'bare') void answer(bare(request.url, file.size, file.sha256));
    else
      void Promise.all(clients.map((c) => c.endAsync(true).catch(() => {}))).then(() => {
        agent.destroy();
        process.send!({ id: request.id } satisfies Answer, () => process.exit(0));
      });
  });
  process.on('disconnect', () => process.exit(0));
  send({ ready: true });
}
