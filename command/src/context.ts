import type { FastifyRequest } from 'fastify';
import { SYSTEM_TENANT } from '@iot/contracts';
import { principalOf } from '@iot/infra/http/principal.ts';
import type { CommandContext } from './handler.ts';

const idempotencyKeyOf = (request: FastifyRequest): string | undefined => {
  const key = request.headers['idempotency-key'];
  return typeof key === 'string' && key.length > 0 && key.length <= 128 ? key : undefined;
};

/** The command context of a logged-in caller: tenant and actor from the token, never from the body. */
export function contextOf(request: FastifyRequest): CommandContext {
  const principal = principalOf(request);
  return {
    tenantId: principal.tenantId,
    actor: { kind: principal.kind, id: principal.id },
    correlationId: request.id,
    idempotencyKey: idempotencyKeyOf(request),
    ip: request.ip,
  };
}

/** The command context of an anonymous caller (a visitor registering a tenant). */
export function anonymousContextOf(request: FastifyRequest, tenantId: string = SYSTEM_TENANT): CommandContext {
  return {
    tenantId,
    actor: { kind: 'system', id: 'anonymous' },
    correlationId: request.id,
    idempotencyKey: idempotencyKeyOf(request),
    ip: request.ip,
  };
}
