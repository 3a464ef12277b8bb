import { ROOT_CHAIN_ID, defaultRootChain, type RuleChainDefinition, type RuleRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type Ports, type RequestContext } from '@iot/contracts/http/handler.ts';
import type { CommandDispatchers } from '@iot/contracts/ports/dispatch.ts';
import { handleCommand, newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { perItemFound } from '../shared/bulk.ts';
import { clearActiveAlarm } from '../alarm/handlers.ts';
import { ruleChainStream } from './chain.ts';
import { ruleChainDecider, type RuleChainCommand } from './decide.ts';

const chainCommand = (ctx: RequestContext, command: RuleChainCommand) =>
  runCommand(ctx, ruleChainDecider, ruleChainStream(callerOf(ctx).tenantId, command.chainId), command);

async function createChain(ctx: RequestContext, chain: RuleChainDefinition) {
  const chainId = newAggregateId(commandContextOf(ctx));
  await chainCommand(ctx, { type: 'CreateChain', chainId, root: false, chain });
  return { id: chainId, version: 1 };
}

type RuleWrites = 'ruleChain.create' | 'ruleChain.update' | 'ruleChain.delete' | 'ruleChain.restore' | 'ruleChain.run' | 'ruleChain.import';

/** The rule chain library (issue 19): every save a version on the chain's stream, the running one switched by an event. */
export const ruleHandlers: Pick<Handlers<RuleRoutes>, RuleWrites> = {
  async 'ruleChain.create'({ body }, ctx) {
    return createChain(ctx, body.chain);
  },

  async 'ruleChain.import'({ body }, ctx) {
    return createChain(ctx, body.chain);
  },

  async 'ruleChain.update'({ body }, ctx) {
    const { id, chain, baseVersion, run } = body;
    const result = await chainCommand(ctx, { type: 'SaveChain', chainId: id, chain, baseVersion, run });
    return { id, version: result.state.latest };
  },

  async 'ruleChain.delete'({ query }, ctx) {
    return perItemFound(query.ids, (id) => chainCommand(ctx, { type: 'DeleteChain', chainId: id }), ctx.lang);
  },

  async 'ruleChain.restore'({ body }, ctx) {
    const result = await chainCommand(ctx, { type: 'RestoreVersion', chainId: body.id, version: body.version });
    return { id: body.id, version: result.state.latest };
  },

  async 'ruleChain.run'({ body }, ctx) {
    const result = await chainCommand(ctx, { type: 'SwitchVersion', chainId: body.id, version: body.version });
    return { id: body.id, version: result.state.running };
  },
};

/** Every tenant's root chain, and what rule-chain action nodes ask of the write side, through the dispatch port. */
export function ruleDispatchers(ports: Omit<Ports, 'dispatch'>): Pick<CommandDispatchers, 'CreateRootChain' | 'ClearRuleAlarm'> {
  return {
    async CreateRootChain(command, metadata) {
      const result = await handleCommand(
        ports.store,
        ruleChainDecider,
        ruleChainStream(command.tenantId, ROOT_CHAIN_ID),
        { type: 'CreateChain', chainId: ROOT_CHAIN_ID, root: true, chain: defaultRootChain },
        { ...metadata, tenantId: command.tenantId },
      );
      return { position: result.events.at(-1)?.position ?? null, id: ROOT_CHAIN_ID };
    },
    async ClearRuleAlarm(command, metadata) {
      const result = await clearActiveAlarm(
        ports,
        command.deviceId,
        command.ruleId,
        { value: command.value, at: command.at, auto: true, note: null },
        { ...metadata },
      );
      if (!result) return { position: null };
      return { position: result.events.at(-1)?.position ?? null };
    },
  };
}
