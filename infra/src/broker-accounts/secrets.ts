import type { Logger } from 'pino';
import { isRawAnswer } from '@iot/contracts/http/route.ts';
import type { Handler, RequestContext } from '@iot/contracts/http/handler.ts';
import type { routes } from '@iot/contracts';
import type { BrokerAccounts } from './port.ts';

type SecretRoutes = 'device.create' | 'device.rotateSecret';
type SecretHandlers = { [K in SecretRoutes]: Handler<(typeof routes)[K]> };

const isGateway = async (ctx: RequestContext, sql: string, id: string) =>
  (await ctx.ports.db.query<{ type: string }>(sql, [id])).rows[0]?.type === 'gateway';

/**
 * The device secret exists in clear only in the answer to create and rotate (the log keeps its SHA-256), so
 * that is where it is handed to the broker's accounts: once the events are committed, before the answer goes
 * out. A broker that cannot be reached then does not undo the committed change: the failure is logged and the
 * device gets its password at the next rotation (the rest of its account comes from `brokerAccountsReactor`).
 */
export function withBrokerSecrets<H extends SecretHandlers>(handlers: H, accounts: BrokerAccounts, logger: Logger): H {
  const handOver = async (ctx: RequestContext, sn: string, secret: string, gateway: Promise<boolean>) => {
    try {
      await accounts.setSecret({ sn, gateway: await gateway }, secret);
    } catch (err) {
      logger.error({ err, sn }, 'device secret not set on the broker: rotate it once the broker is back');
    }
  };
  return {
    ...handlers,
    async 'device.create'(input, ctx) {
      const answer = await handlers['device.create'](input, ctx);
      if (!isRawAnswer(answer))
        await handOver(ctx, answer.sn, answer.secret, isGateway(ctx, 'select type from rm_products where id = $1', input.body.productId));
      return answer;
    },
    async 'device.rotateSecret'(input, ctx) {
      const answer = await handlers['device.rotateSecret'](input, ctx);
      if (!isRawAnswer(answer))
        await handOver(ctx, answer.sn, answer.secret, isGateway(ctx, 'select node_type as type from rm_devices where id = $1', answer.id));
      return answer;
    },
  };
}
