import { createHmac } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';

/** A simulated device: its credentials, and for a gateway the sub-devices it publishes for. */
export interface SimulatedDevice {
  sn: string;
  secret: string;
  /** Sub-device SNs: the device publishes their readings on its gateway topic. */
  subDevices?: string[];
}

export interface SimulatorOptions {
  url: string;
  devices: SimulatedDevice[];
  /** Readings of one device at one instant. */
  readings(sn: string, at: number): Record<string, number>;
  intervalMs: number;
  qos?: 0 | 1;
  onError?(error: unknown): void;
}

/**
 * Publishes real MQTT as a fleet would (issue 11 "Simulator"): one connection per device, logging in with
 * SN and secret; a gateway publishes for its sub-devices. Counts what it sent so that a test can compare.
 */
export async function startSimulator(options: SimulatorOptions) {
  const clients: MqttClient[] = [];
  let sent = 0;
  let values = 0;
  for (const device of options.devices) {
    const client = mqtt.connect(options.url, {
      username: device.sn,
      password: device.secret,
      clientId: `sim-${device.sn}`,
      reconnectPeriod: 5_000,
    });
    client.on('error', (error) => options.onError?.(error));
    clients.push(client);
  }
  const tick = async () => {
    const at = Date.now();
    await Promise.all(
      options.devices.map(async (device, i) => {
        const client = clients[i]!;
        if (!client.connected) return;
        const own = options.readings(device.sn, at);
        const publishes: Promise<unknown>[] = [
          client.publishAsync(`devices/${device.sn}/telemetry`, JSON.stringify(own), { qos: options.qos ?? 1 }),
        ];
        values += Object.keys(own).length;
        if (device.subDevices?.length) {
          const body = Object.fromEntries(device.subDevices.map((sn) => [sn, options.readings(sn, at)]));
          values += Object.values(body).reduce((n, v) => n + Object.keys(v).length, 0);
          publishes.push(client.publishAsync(`gateways/${device.sn}/telemetry`, JSON.stringify(body), { qos: options.qos ?? 1 }));
        }
        sent += publishes.length;
        await Promise.all(publishes);
      }),
    ).catch((error: unknown) => options.onError?.(error));
  };
  const timer = setInterval(() => void tick(), options.intervalMs);
  timer.unref();
  return {
    tick,
    stats: () => ({ messages: sent, values, connected: clients.filter((c) => c.connected).length }),
    async stop() {
      clearInterval(timer);
      await Promise.all(clients.map((c) => c.endAsync(true)));
    },
  };
}

/**
 * The demo fleet's device secrets: derived from the SN with a key everyone can read, so that `npm start`
 * can run a simulator for it. Demo data only: real devices get 256 random bits (command/src/device/secrets.ts).
 */
export const demoDeviceSecret = (sn: string) => createHmac('sha256', 'device-cloud-demo-fleet').update(sn).digest('base64url');

/** Plausible readings for the demo's sensors, gateways and meters: daily cycles with a little noise. */
export function demoReadings(sn: string, at: number): Record<string, number> {
  const day = ((at / 86_400_000) % 1) * 2 * Math.PI;
  const seed = [...sn].reduce((n, c) => n + c.charCodeAt(0), 0);
  const noise = (scale: number) => Math.round((Math.sin(at / 7_000 + seed) + Math.sin(at / 13_000 + seed * 3)) * scale * 50) / 100;
  if (sn.startsWith('DEMO-TH'))
    return {
      temperature: Math.round((22 + 6 * Math.sin(day - 2) + noise(1)) * 10) / 10,
      humidity: Math.round((55 + 15 * Math.cos(day) + noise(3)) * 10) / 10,
      battery: 90 - (seed % 30),
    };
  if (sn.startsWith('DEMO-GW'))
    return {
      cpu: Math.round((20 + 10 * Math.abs(Math.sin(at / 60_000)) + noise(2)) * 10) / 10,
      uptime: Math.floor(at / 1000) % 10_000_000,
    };
  const power = Math.round(meterScale(sn) * (8 + 5 * Math.sin(day - 1) + noise(1)) * 100) / 100;
  return {
    voltage: Math.round((220 + noise(2)) * 10) / 10,
    current: Math.round((power / 0.22) * 100) / 100,
    power,
    energy: demoEnergy(sn, at),
  };
}

/** Each demo meter draws its own share of the daily load: 0.6 to 1.2 times the base. */
const meterScale = (sn: string) => 0.6 + ([...sn].reduce((n, c) => n + c.charCodeAt(0), 0) % 7) / 10;

/**
 * A demo meter's cumulative energy (kWh) at an instant: the integral of its power without the noise, 8 kW plus a daily
 * swing of 5 kW that peaks in the Shanghai evening. Always rising, so the demo's history and live readings join up.
 */
export function demoEnergy(sn: string, at: number): number {
  const hours = at / 3_600_000;
  const swing = (60 / Math.PI) * (1 - Math.cos(((hours % 24) / 24) * 2 * Math.PI - 1));
  return Math.round(meterScale(sn) * (8 * hours + swing) * 100) / 100;
}
