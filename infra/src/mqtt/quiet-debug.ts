import { createRequire } from 'node:module';

/**
 * mqtt-packet (under Aedes and MQTT.js) calls its `debug` logger a dozen times for every packet it parses, and a
 * disabled `debug` logger still collects its arguments and reads its `enabled` getter on each call: about 2% of the
 * embedded broker's CPU at 20k data points a second. Here, before mqtt-packet is loaded, the `debug` module it
 * requires hands out a function that does nothing for a namespace the DEBUG variable leaves off (read once, at start,
 * as `debug` itself reads it); a namespace DEBUG names gets the real logger. Imported first by the modules that load
 * mqtt-packet (embedded.ts, client.ts): if mqtt-packet was loaded before, this changes nothing.
 */
const fromMqttPacket = createRequire(createRequire(import.meta.url).resolve('mqtt-packet'));
const debugPath = fromMqttPacket.resolve('debug');
type CreateDebug = ((namespace: string) => unknown) & { enabled(namespace: string): boolean };
const real = fromMqttPacket('debug') as CreateDebug;
const cached = fromMqttPacket.cache[debugPath];
if (cached && !(real as { quiet?: true }).quiet) {
  const off = Object.assign(() => undefined, { enabled: false, extend: () => off, log: () => undefined, namespace: '' });
  const quiet = Object.assign((namespace: string) => (real.enabled(namespace) ? real(namespace) : off), real, { quiet: true as const });
  cached.exports = quiet;
}
