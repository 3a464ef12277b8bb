import { SYSTEM_TENANT } from '@iot/contracts';
import { callerOf, type RequestContext } from '@iot/contracts/http/handler.ts';
import type { Decider, DomainEvent } from './decider.ts';
import { handleCommand, type CommandContext, type CommandResult } from './handler.ts';

/** The command context of a logged-in caller: tenant and actor from the token, never from the body. */
export function commandContextOf(ctx: RequestContext): CommandContext {
  const caller = callerOf(ctx);
  return {
    tenantId: caller.tenantId,
    actor: { kind: caller.kind, id: caller.id },
    correlationId: ctx.requestId,
    idempotencyKey: ctx.idempotencyKey,
    ip: ctx.ip,
    onAppended: ctx.wrote,
  };
}

/** The command context of an anonymous caller (a visitor registering a tenant). */
export function anonymousCommandContextOf(ctx: RequestContext, tenantId: string = SYSTEM_TENANT): CommandContext {
  return {
    tenantId,
    actor: { kind: 'system', id: 'anonymous' },
    correlationId: ctx.requestId,
    idempotencyKey: ctx.idempotencyKey,
    ip: ctx.ip,
    onAppended: ctx.wrote,
  };
}

/** Runs a command for the caller of a route; the adapter makes the answer wait for the route's read models. */
export function runCommand<C, E extends DomainEvent, S>(
  ctx: RequestContext,
  decider: Decider<C, E, S>,
  stream: string,
  command: C,
): Promise<CommandResult<S>> {
  return handleCommand(ctx.ports.store, decider, stream, command, commandContextOf(ctx));
}
