import type { FastifyRequest } from 'fastify';
import type { AppContext } from '@iot/infra/http/context.ts';
import { principalOf, type Principal } from '@iot/infra/http/principal.ts';
import type { Decider, DomainEvent } from '../decider.ts';
import { handleCommand, type CommandResult } from '../handler.ts';
import { contextOf } from '../context.ts';

/**
 * Runs a command for the caller of a route and waits for the read models, so that the caller's next
 * read sees its own write.
 */
export async function runCommand<C, E extends DomainEvent, S>(
  app: Pick<AppContext, 'store' | 'awaitProjections'>,
  request: FastifyRequest,
  decider: Decider<C, E, S>,
  stream: string,
  command: C,
): Promise<CommandResult<S>> {
  const result = await handleCommand(app.store, decider, stream, command, contextOf(request));
  await app.awaitProjections?.();
  return result;
}

/** The tenant's root user: its administrator (or the system administrator), who holds every permission of the tenant. */
export const isRootUser = (principal: Principal) => principal.kind === 'user' && principal.permissions.has('*');

export const callerOf = (request: FastifyRequest) => principalOf(request);
