/**
 * `npm run simulate -- --devices N --rate R --vars V [--url mqtt://...] [--seconds S] [--credentials file.csv] [--demo]`
 *
 * Publishes real MQTT as a fleet would, against the embedded broker or MQTT_URL, and prints what it sent.
 * Devices log in with their SN and secret: `--demo` drives the demo fleet (its secrets are derived, demo only);
 * `--credentials` reads `sn,secret` lines (what an import or the device screen gave you) and publishes V numeric
 * variables `v1..vV` per message for the first N devices, R messages per second in all.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { demoFleetDevices } from '../seed-fleet.ts';
import { demoReadings, startSimulator, type SimulatedDevice } from '../simulator.ts';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string', default: process.env.MQTT_URL ?? `mqtt://127.0.0.1:${process.env.MQTT_PORT ?? 1883}` },
    devices: { type: 'string', default: '20' },
    rate: { type: 'string', default: '10' },
    vars: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '60' },
    credentials: { type: 'string' },
    demo: { type: 'boolean', default: false },
  },
});
const count = Number(args.devices);
const rate = Number(args.rate);
const vars = Number(args.vars);
if (![count, rate, vars].every((n) => Number.isInteger(n) && n > 0)) throw new Error('--devices, --rate and --vars are positive integers');

let devices: SimulatedDevice[];
let readings = demoReadings;
if (args.demo) devices = demoFleetDevices();
else if (args.credentials) {
  devices = readFileSync(args.credentials, 'utf8')
    .split('\n')
    .map((line) => line.trim().split(','))
    .filter(([sn, secret]) => sn && secret && sn !== 'sn')
    .slice(0, count)
    .map(([sn, secret]) => ({ sn: sn!, secret: secret! }));
  readings = (_sn, at) =>
    Object.fromEntries(Array.from({ length: vars }, (_, i) => [`v${i + 1}`, Math.round(Math.sin(at / 10_000 + i) * 1000) / 10]));
} else throw new Error('give --demo or --credentials file.csv (lines of sn,secret)');

const intervalMs = Math.max(10, Math.round((1000 * devices.length) / rate));
const simulator = await startSimulator({
  url: args.url!,
  devices,
  readings,
  intervalMs,
  onError: (e) => process.stderr.write(`${String(e)}\n`),
});
const started = Date.now();
const report = setInterval(
  () => process.stdout.write(`${JSON.stringify({ seconds: Math.round((Date.now() - started) / 1000), ...simulator.stats() })}\n`),
  5_000,
);
await new Promise((r) => setTimeout(r, Number(args.seconds) * 1000));
clearInterval(report);
await simulator.stop();
process.stdout.write(`${JSON.stringify({ done: true, ...simulator.stats() })}\n`);
process.exit(0);
