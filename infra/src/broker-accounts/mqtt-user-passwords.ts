import type { Logger } from 'pino';
import { isRawAnswer } from '@iot/contracts/http/route.ts';
import { callerOf, type Handler } from '@iot/contracts/http/handler.ts';
import type { routes } from '@iot/contracts';
import type { MqttUserAccount, MqttUserAccounts } from '@iot/contracts/ports/mqtt-user-accounts.ts';
import { mqttUserById } from '@iot/projections/forward/read.ts';

type PasswordRoutes = 'mqttUser.create' | 'mqttUser.password';
type PasswordHandlers = { [K in PasswordRoutes]: Handler<(typeof routes)[K]> };

/**
 * An MQTT user's password exists in clear only in the create and change requests (the platform keeps an argon2id
 * hash), so that is where it is handed to the broker's accounts: once the events are committed, before the answer
 * goes out. A broker that cannot be reached does not undo the committed change: the failure is logged, and the user
 * gets the password at its next change (the rest of its account comes from `mqttUserAccountsReactor`).
 */
export function withMqttUserPasswords<H extends PasswordHandlers>(handlers: H, accounts: MqttUserAccounts, logger: Logger): H {
  const handOver = async (user: MqttUserAccount, password: string) => {
    try {
      await accounts.setPassword(user, password);
    } catch (err) {
      logger.error({ err, username: user.username }, 'MQTT user password not set on the broker: change it once the broker is back');
    }
  };
  return {
    ...handlers,
    async 'mqttUser.create'(input, ctx) {
      const answer = await handlers['mqttUser.create'](input, ctx);
      if (!isRawAnswer(answer)) await handOver({ userId: answer.id, username: input.body.username }, input.body.password);
      return answer;
    },
    async 'mqttUser.password'(input, ctx) {
      const answer = await handlers['mqttUser.password'](input, ctx);
      const user = isRawAnswer(answer) ? null : await mqttUserById(ctx.ports.db, callerOf(ctx).tenantId, answer.id);
      // Just changed: the read model has the user (its username never changes).
      if (user) await handOver({ userId: user.id, username: user.username }, input.body.newPassword);
      return answer;
    },
  };
}
