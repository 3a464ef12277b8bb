import type { MqttAclEvent, MqttUserEvent } from '@iot/contracts';
import type { StoredEventOf } from '@iot/contracts/ports/event-store.ts';
import type { MqttUserAccounts } from '@iot/contracts/ports/mqtt-user-accounts.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { projection } from '../projection.ts';

/**
 * Keeps an external broker's MQTT-user accounts (Mosquitto's dynamic security) in step with the MQTT users and their
 * topic rules, from the event log (issue 19): a user created gets an account, each rule grants its topic, a deleted
 * user loses the account and its rules. Runs beside the projections, so a crash or a broker that is away resumes from
 * the checkpoint (every call is idempotent). The password is not in the log: the create and change answers hand it
 * over. Its two tables remember what the later events no longer say (a deleted user's username, a user's rules).
 */
export function mqttUserAccountsReactor(accounts: MqttUserAccounts) {
  const userOf = async (tx: Sql, userId: string) =>
    (await tx.query<{ username: string }>('select username from broker_mqtt_users where user_id = $1', [userId])).rows[0];

  async function apply(tx: Sql, event: StoredEventOf<MqttUserEvent | MqttAclEvent>) {
    switch (event.type) {
      case 'MqttUserCreated': {
        const { mqttUserId: userId, username } = event.data;
        await tx.query('insert into broker_mqtt_users (user_id, username) values ($1, $2) on conflict (user_id) do nothing', [
          userId,
          username,
        ]);
        return accounts.createUser({ userId, username });
      }
      case 'MqttUserDeleted': {
        const userId = event.data.mqttUserId;
        const rules = await tx.query<{ acl_id: string }>('delete from broker_mqtt_acls where user_id = $1 returning acl_id', [userId]);
        for (const { acl_id } of rules.rows) await accounts.revoke(acl_id);
        const user = await userOf(tx, userId);
        await tx.query('delete from broker_mqtt_users where user_id = $1', [userId]);
        if (user) await accounts.removeUser({ userId, username: user.username });
        return;
      }
      case 'MqttAclCreated':
      case 'MqttAclUpdated': {
        const { aclId, mqttUserId: userId, topic, access } = event.data;
        await tx.query(
          'insert into broker_mqtt_acls (acl_id, user_id) values ($1, $2) on conflict (acl_id) do update set user_id = excluded.user_id',
          [aclId, userId],
        );
        return accounts.grant({ aclId, userId, topic, access });
      }
      case 'MqttAclDeleted':
        await tx.query('delete from broker_mqtt_acls where acl_id = $1', [event.data.aclId]);
        return accounts.revoke(event.data.aclId);
      default:
        return;
    }
  }

  return projection<MqttUserEvent | MqttAclEvent>({
    name: 'reactor-mqtt-user-accounts',
    handles: ['MqttUserCreated', 'MqttUserDeleted', 'MqttAclCreated', 'MqttAclUpdated', 'MqttAclDeleted'],
    schema: `
      create table broker_mqtt_users (
        user_id text primary key,
        username text not null
      );
      create table broker_mqtt_acls (
        acl_id text primary key,
        user_id text not null
      );
      create index broker_mqtt_acls_user on broker_mqtt_acls (user_id);`,
    tables: ['broker_mqtt_users', 'broker_mqtt_acls'],
    apply,
  });
}
