/**
 * The MQTT load generator of the ingest benchmarks, in a process of its own: N MQTT.js clients, each keeping
 * `window` QoS 1 publishes in flight, for `seconds`; prints {sent, acked, seconds, p50Ms, p99Ms} as JSON.
 * Usage: tsx tests/bench/mqtt-load.ts URL CREDENTIALS_FILE VARS SECONDS WINDOW [SUFFIX] (devices/<sn>/<SUFFIX>, default telemetry)
 */
import { readFileSync } from 'node:fs';
import mqtt from 'mqtt';

const [url, file, varsArg, secondsArg, windowArg, suffix = 'telemetry'] = process.argv.slice(2);
const vars = Number(varsArg);
const seconds = Number(secondsArg);
const window = Number(windowArg);
const devices = readFileSync(file!, 'utf8')
  .trim()
  .split('\n')
  .map((l) => l.split(','))
  .map(([sn, secret]) => ({ sn: sn!, secret: secret! }));

const latencies: number[] = [];
let sent = 0;
let acked = 0;
let failed = 0;
const clients = await Promise.all(
  devices.map(
    (d) =>
      new Promise<mqtt.MqttClient>((resolve, reject) => {
        const c = mqtt.connect(url!, { username: d.sn, password: d.secret, clientId: `load-${d.sn}`, reconnectPeriod: 0 });
        c.once('connect', () => resolve(c));
        c.once('error', reject);
      }),
  ),
);
const deadline = Date.now() + seconds * 1000;
let seq = 0;
const payload = () => {
  const values: Record<string, number> = {};
  seq += 1;
  for (let i = 1; i <= vars; i++) values[`v${i}`] = (seq % 1000) + i / 10;
  return JSON.stringify(values);
};
const started = performance.now();
await Promise.all(
  clients.map(async (client, i) => {
    const topic = `devices/${devices[i]!.sn}/${suffix}`;
    const lane = async () => {
      while (Date.now() < deadline) {
        const t = performance.now();
        sent += 1;
        try {
          await client.publishAsync(topic, payload(), { qos: 1 });
          acked += 1;
          latencies.push(performance.now() - t);
        } catch {
          failed += 1;
        }
      }
    };
    await Promise.all(Array.from({ length: window }, lane));
  }),
);
const elapsed = (performance.now() - started) / 1000;
await Promise.all(clients.map((c) => c.endAsync(true)));
latencies.sort((a, b) => a - b);
const at = (q: number) => Math.round((latencies[Math.floor(latencies.length * q)] ?? 0) * 10) / 10;
process.stdout.write(JSON.stringify({ sent, acked, failed, seconds: elapsed, p50Ms: at(0.5), p99Ms: at(0.99) }));
process.exit(0);
