import type { MqttAccess } from '../forward/model.ts';

/**
 * The MQTT users (issue 19) as the broker's authorisation (ingest/) asks about them: the forward read module and the
 * platform's credentials answer, bound by infra/.
 */
export interface MqttUserDirectory {
  /** The MQTT user with this username (any case); null when it is no MQTT user's (a device's). */
  byUsername(username: string): Promise<{ id: string; tenantId: string } | null>;
  /** Whether the password is the user's (argon2id, beside the platform's other credentials). */
  verifyPassword(userId: string, password: string): Promise<boolean>;
  /** The user's topic rules. */
  aclsOf(userId: string): Promise<Array<{ topic: string; access: MqttAccess }>>;
}
