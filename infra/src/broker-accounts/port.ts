import type { MqttUserAccounts } from '@iot/contracts/ports/mqtt-user-accounts.ts';

/**
 * Device accounts on an external broker (Mosquitto's dynamic-security plugin holds them; EMQX asks the platform's
 * HTTP hooks, and only its sessions are cut through its API): the platform keeps them in step with its devices.
 * The embedded broker asks the device registry at each connect and cuts its own sessions: `noBrokerAccounts`.
 * On an external broker a device's client id is its SN, so that no other device can take its session over.
 */
export interface BrokerDevice {
  sn: string;
  /** A gateway may also publish for its sub-devices (`gateways/<sn>/...`). */
  gateway: boolean;
}

export interface BrokerAccounts {
  /** The MQTT users' accounts (issue 19), where the broker keeps them. */
  mqttUsers?: MqttUserAccounts;
  /** The devices' accounts exist and may use their own topics (idempotent); a password is set only by `setSecret`. */
  provision(devices: readonly BrokerDevice[]): Promise<void>;
  /** The device's password is its secret (at create and rotate, the only moments the platform knows it). */
  setSecret(device: BrokerDevice, secret: string): Promise<void>;
  /** Let in or keep out (a disabled device, or one of a stopped tenant); a connected device is disconnected. */
  setEnabled(sns: readonly string[], enabled: boolean): Promise<void>;
  /** Removes the account (a deleted device), ending its sessions; absent already is fine. */
  remove(sn: string): Promise<void>;
  /** The device's secret changed: the sessions opened with the old one end now (the new secret is set by `setSecret`). */
  rotated(sn: string): Promise<void>;
  health(): Promise<{ ok: boolean; detail?: string }>;
  close(): Promise<void>;
}

export const noBrokerAccounts: BrokerAccounts = {
  provision: async () => {},
  setSecret: async () => {},
  setEnabled: async () => {},
  remove: async () => {},
  rotated: async () => {},
  health: async () => ({ ok: true, detail: 'none' }),
  close: async () => {},
};
