import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { emqxAccounts } from '../broker-accounts/emqx.ts';
import { connectMosquittoAccounts } from '../broker-accounts/mosquitto.ts';
import { noBrokerAccounts, type BrokerAccounts } from '../broker-accounts/port.ts';
import type { EngineHealth } from '../http/context.ts';
import { brokerAddress } from '../mqtt/client.ts';
import type { Stops } from './stops.ts';

/**
 * Device accounts on an external broker that keeps its own (Mosquitto's dynamic security): provisioned from
 * the device events by a reactor, and given each secret by the create and rotate routes. EMQX asks the hooks
 * who may connect; its API cuts the sessions of a device that lost the right to them.
 */
export async function startBrokerAccounts(
  config: Config,
  runsIngest: boolean,
  logger: Logger,
  stops: Stops,
  engines: EngineHealth[],
): Promise<BrokerAccounts> {
  if (config.MQTT_URL && config.MQTT_DYNSEC === 'true') {
    const mosquitto = await connectMosquittoAccounts({ url: config.MQTT_URL });
    stops.push(() => mosquitto.close());
    engines.push({ name: 'mqtt:dynsec', check: () => mosquitto.health() });
    if (runsIngest) {
      await mosquitto.grantPlatform(brokerAddress(config.MQTT_URL).username ?? '');
      // Accounts made by an earlier release are bound to their SN as client id (each device reconnects once).
      const bound = await mosquitto.bindClientIds();
      if (bound > 0) logger.info({ bound }, 'device accounts bound to their SN as client id');
    }
    return mosquitto;
  }
  if (config.MQTT_URL && config.EMQX_API_URL && config.EMQX_API_KEY && config.EMQX_API_SECRET) {
    const emqx = emqxAccounts({ apiUrl: config.EMQX_API_URL, apiKey: config.EMQX_API_KEY, apiSecret: config.EMQX_API_SECRET });
    engines.push({ name: 'mqtt:emqx-api', check: () => emqx.health() });
    return emqx;
  }
  return noBrokerAccounts;
}
