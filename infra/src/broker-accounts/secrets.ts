import type { Logger } from 'pino';
import { isRawAnswer } from '@iot/contracts/http/route.ts';
import { callerOf, type Handler, type RequestContext } from '@iot/contracts/http/handler.ts';
import type { routes } from '@iot/contracts';
import type { BrokerAccounts } from './port.ts';

type SecretRoutes = 'device.create' | 'device.rotateSecret';
type SecretHandlers = { [K in SecretRoutes]: Handler<(typeof routes)[K]> };

const productIsGateway = async (ctx: RequestContext, productId: string) =>
  (await ctx.ports.lookups.productNodeType(callerOf(ctx).tenantId, productId)) === 'gateway';
const deviceIsGateway = async (ctx: RequestContext, deviceId: string) =>
  (await ctx.ports.lookups.deviceNodeType(callerOf(ctx).tenantId, deviceId)) === 'gateway';

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
      if (!isRawAnswer(answer)) await handOver(ctx, answer.sn, answer.secret, productIsGateway(ctx, input.body.productId));
      return answer;
    },
    async 'device.rotateSecret'(input, ctx) {
      const answer = await handlers['device.rotateSecret'](input, ctx);
      if (!isRawAnswer(answer)) await handOver(ctx, answer.sn, answer.secret, deviceIsGateway(ctx, answer.id));
      return answer;
    },
  };
}
