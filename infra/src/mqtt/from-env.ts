import { connectExternalMqtt } from './client.ts';
import { startEmbeddedMqtt } from './embedded.ts';
import type { MqttAuthHooks, MqttPort } from './port.ts';

/** The external broker when `MQTT_URL` is set, else Aedes on `MQTT_PORT` (default 1883) with the platform's auth hooks. */
export async function startMqttFromEnv(hooks: MqttAuthHooks = {}, env: NodeJS.ProcessEnv = process.env): Promise<MqttPort> {
  if (env.MQTT_URL) return connectExternalMqtt({ url: env.MQTT_URL });
  return startEmbeddedMqtt({ ...hooks, port: Number(env.MQTT_PORT ?? 1883) });
}
