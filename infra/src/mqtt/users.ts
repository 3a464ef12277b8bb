import type { MqttAclEvent, MqttUserEvent } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { verifyPassword } from '@iot/command/auth/credentials.ts';
import { mqttUserSubject } from '@iot/command/forward/decide.ts';
import { createMqttUserAuth as createAuth, mqttUserAuthEvents } from '@iot/ingest/mqtt-users.ts';
import { mqttAclsOf, mqttUserByUsername } from '@iot/projections/forward/read.ts';
import { projection } from '@iot/projections/projection.ts';

/**
 * The MQTT users' authorisation (ingest/src/mqtt-users.ts) over the forward read module and the platform's
 * credentials, told by the event log when a user's password or topic rules change.
 */
export function createMqttUserAuth(db: Sql) {
  const auth = createAuth({
    byUsername: (username) => mqttUserByUsername(db, username),
    verifyPassword: (userId, password) => verifyPassword(db, mqttUserSubject(userId), password),
    aclsOf: (userId) => mqttAclsOf(db, userId),
  });
  return {
    ...auth,
    hooks: projection<MqttUserEvent | MqttAclEvent>({
      name: 'reactor-mqtt-users',
      handles: [...mqttUserAuthEvents],
      schema: 'select 1',
      tables: [],
      apply: (_tx, event) => auth.apply(event),
    }),
  };
}
export type MqttUserAuth = ReturnType<typeof createMqttUserAuth>;
