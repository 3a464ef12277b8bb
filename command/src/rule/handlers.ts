import { ROOT_CHAIN_ID, defaultRootChain, type RuleChainDefinition, type RuleRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type Ports, type RequestContext } from '@iot/contracts/http/handler.ts';
import type { CommandDispatchers } from '@iot/contracts/ports/dispatch.ts';
import type { EventStore } from '@iot/contracts/ports/event-store.ts';
import { handleCommand, newAggregateId, type CommandContext } from '../handler.ts';
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

type RuleWrites =
  | 'ruleChain.create'
  | 'ruleChain.update'
  | 'ruleChain.delete'
  | 'ruleChain.restore'
  | 'ruleChain.run'
  | 'ruleChain.import'
  | 'ruleChain.setDebug';

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

  async 'ruleChain.setDebug'({ body }, ctx) {
    const { id, nodeId, minutes, sampleRate } = body;
    const until = minutes > 0 ? new Date(Date.now() + minutes * 60_000).toISOString() : null;
    await chainCommand(ctx, { type: 'SetNodeDebug', chainId: id, nodeId, until, sampleRate });
    const shown = until ?? new Date().toISOString();
    return { nodeId, until: shown, sampleRate, active: until !== null };
  },
};

/** A tenant's root chain, made once (a Warehousing node: it stores what arrives, as before chains existed). */
export async function createRootChain(store: EventStore, tenantId: string, context: Omit<CommandContext, 'tenantId' | 'idempotencyKey'>) {
  await handleCommand(
    store,
    ruleChainDecider,
    ruleChainStream(tenantId, ROOT_CHAIN_ID),
    { type: 'CreateChain', chainId: ROOT_CHAIN_ID, root: true, chain: defaultRootChain },
    { ...context, tenantId, idempotencyKey: 'rule:root' },
  );
}

/** What rule-chain action nodes ask of the write side, through the dispatch port. */
export function ruleDispatchers(ports: Omit<Ports, 'dispatch'>): Pick<CommandDispatchers, 'ClearRuleAlarm'> {
  return {
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
