/**
 * Device accounts on an external broker that authenticates devices itself (Mosquitto's dynamic-security
 * plugin): the platform keeps them in step with its devices. The embedded broker asks the device registry at
 * each connect, and EMQX calls the platform's HTTP hooks, so neither needs accounts: `noBrokerAccounts`.
 */
export interface BrokerDevice {
  sn: string;
  /** A gateway may also publish for its sub-devices (`gateways/<sn>/...`). */
  gateway: boolean;
}

export interface BrokerAccounts {
  /** The devices' accounts exist and may use their own topics (idempotent); a password is set only by `setSecret`. */
  provision(devices: readonly BrokerDevice[]): Promise<void>;
  /** The device's password is its secret (at create and rotate, the only moments the platform knows it). */
  setSecret(device: BrokerDevice, secret: string): Promise<void>;
  /** Let in or keep out (a disabled device, or one of a stopped tenant); a connected device is disconnected. */
  setEnabled(sns: readonly string[], enabled: boolean): Promise<void>;
  /** Removes the account (a deleted device); absent already is fine. */
  remove(sn: string): Promise<void>;
  health(): Promise<{ ok: boolean; detail?: string }>;
  close(): Promise<void>;
}

export const noBrokerAccounts: BrokerAccounts = {
  provision: async () => {},
  setSecret: async () => {},
  setEnabled: async () => {},
  remove: async () => {},
  health: async () => ({ ok: true, detail: 'none' }),
  close: async () => {},
};
