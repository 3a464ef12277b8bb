import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DomainError, errorCatalogue, messageOf, type ErrorCode } from '@iot/contracts';

/** The success envelope of spec §8. */
export const ok = <T>(data: T, msg = 'ok') => ({ code: 200, msg, data });

interface FieldError {
  field: string;
  message: string;
}

function send(reply: FastifyReply, request: FastifyRequest, code: ErrorCode, data: unknown = null, msg?: string) {
  const entry = errorCatalogue[code];
  return reply.status(entry.status).send({
    code: entry.status,
    msg: msg ?? messageOf(code, request.lang ?? 'zh'),
    data: { error: code, ...(data && typeof data === 'object' ? data : {}) },
  });
}

export function replyError(reply: FastifyReply, request: FastifyRequest, code: ErrorCode, data?: unknown) {
  return send(reply, request, code, data);
}

/** One error handler: every failure leaves as `{ code, msg, data: { error, ... } }` in the caller's language. */
export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof DomainError) return send(reply, request, error.code, error.details ? { details: error.details } : null);
  if (hasZodFastifySchemaValidationErrors(error)) {
    const fields: FieldError[] = error.validation.flatMap((issue) => {
      const at = [error.validationContext, ...String(issue.instancePath).split('/').filter(Boolean)];
      // An unknown field is named itself, not its parent object.
      const unknown = (issue.params as { keys?: string[] } | undefined)?.keys;
      if (issue.keyword === 'unrecognized_keys' && unknown?.length)
        return unknown.map((key) => ({ field: [...at, key].join('.'), message: 'unknown field' }));
      return [{ field: at.join('.'), message: issue.message ?? 'invalid' }];
    });
    const named = fields.map((f) => f.field).join(', ');
    return send(reply, request, 'VALIDATION', { fields }, `${messageOf('VALIDATION', request.lang)}: ${named}`);
  }
  if (
    error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    (error.statusCode === 400 && error instanceof SyntaxError)
  )
    return send(reply, request, 'BAD_JSON');
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413)
    return send(reply, request, 'BODY_TOO_LARGE', { fields: [{ field: 'body', message: 'larger than 1 MB' }] });
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return send(reply, request, 'VALIDATION', { fields: [{ field: 'content-type', message: 'unsupported media type' }] });
  if (error.statusCode === 429) return send(reply, request, 'RATE_LIMITED');
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500)
    return send(reply, request, 'VALIDATION', { fields: [{ field: 'request', message: error.message }] });
  request.log.error({ err: error }, 'request failed');
  return send(reply, request, 'INTERNAL');
}
