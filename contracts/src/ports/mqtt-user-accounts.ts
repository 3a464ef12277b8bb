import type { MqttAccess } from '../forward/model.ts';

/**
 * MQTT users and their topic rules (issue 19) on an external broker that keeps its own accounts (Mosquitto's dynamic
 * security): the platform keeps them in step with the MQTT-user events. The embedded broker asks the platform at each
 * connect, publish and subscribe instead, and has none. Every call is idempotent: a reactor replays them after a crash.
 */
export interface MqttUserAccount {
  userId: string;
  username: string;
}

export interface MqttUserAccounts {
  /** The user's account exists, with no topic but those its rules grant; it logs in once `setPassword` gave it one. */
  createUser(user: MqttUserAccount): Promise<void>;
  /** The user's password (at create and change, the only moments the platform knows it); its sessions end. */
  setPassword(user: MqttUserAccount, password: string): Promise<void>;
  /** The account is gone, and its sessions with it; absent already is fine. */
  removeUser(user: MqttUserAccount): Promise<void>;
  /** A topic rule of a user, in place of what the same rule granted before (a rule may move to another user). */
  grant(rule: { aclId: string; userId: string; topic: string; access: MqttAccess }): Promise<void>;
  /** What a topic rule granted is taken back; absent already is fine. */
  revoke(aclId: string): Promise<void>;
}
