import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DomainError, errorCatalogue, isErrorCode, messageOf, type ErrorCode } from '@iot/contracts';

/** The success envelope of spec §8. */
export const ok = <T>(data: T, msg = 'ok') => ({ code: 200, msg, data });

interface FieldError {
  field: string;
  message: string;
  /** The catalogue's name for why the value was refused (TIME_INVALID, TEXT_UNSTORABLE, ...), when it has one. */
  reason?: ErrorCode;
}

/** The caller's language (spec §7 `lang`, else Accept-Language): English when it starts with `en`, else Chinese. */
export function langOf(headers: IncomingHttpHeaders): 'zh' | 'en' {
  return /^en/i.test(String(headers['lang'] ?? headers['accept-language'] ?? '')) ? 'en' : 'zh';
}

/** The error envelope of spec §8 in `lang`, without a transport (the device fast path writes it on a bare response). */
export function errorBody(code: ErrorCode, lang: 'zh' | 'en', data: unknown = null, msg?: string) {
  const entry = errorCatalogue[code];
  const details = data && typeof data === 'object' ? (data as { details?: unknown }).details : undefined;
  return {
    code: entry.status,
    msg: msg ?? messageOf(code, lang, details),
    data: { error: code, ...(data && typeof data === 'object' ? data : {}) },
  };
}

function send(reply: FastifyReply, request: FastifyRequest, code: ErrorCode, data: unknown = null, msg?: string) {
  return reply.status(errorCatalogue[code].status).send(errorBody(code, request.lang ?? 'zh', data, msg));
}

/**
 * A VALIDATION answer naming its fields; the message is the first field's reason in the caller's language when the
 * catalogue has one ("Invalid time: …: querystring.from"), else the catalogue's VALIDATION message.
 */
export function replyInvalid(reply: FastifyReply, request: FastifyRequest, fields: FieldError[]) {
  const reason = fields.find((f) => f.reason)?.reason;
  const named = fields.map((f) => f.field).join(', ');
  return send(reply, request, 'VALIDATION', { fields }, `${messageOf(reason ?? 'VALIDATION', request.lang ?? 'zh')}: ${named}`);
}

export function replyError(reply: FastifyReply, request: FastifyRequest, code: ErrorCode, data?: unknown) {
  return send(reply, request, code, data);
}

/** One error handler: every failure leaves as `{ code, msg, data: { error, ... } }` in the caller's language. */
export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof DomainError) {
    // A range past the end tells the size it missed (RFC 9110 §15.5.17).
    const size = (error.details as { size?: unknown } | undefined)?.size;
    if (error.code === 'RANGE_NOT_SATISFIABLE' && typeof size === 'number') reply.header('content-range', `bytes */${size}`);
    return send(reply, request, error.code, error.details ? { details: error.details } : null);
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const fields: FieldError[] = error.validation.flatMap((issue) => {
      const at = [error.validationContext, ...String(issue.instancePath).split('/').filter(Boolean)];
      // An unknown field is named itself, not its parent object.
      const unknown = (issue.params as { keys?: string[] } | undefined)?.keys;
      if (issue.keyword === 'unrecognized_keys' && unknown?.length)
        return unknown.map((key) => ({ field: [...at, key].join('.'), message: 'unknown field' }));
      // A schema names a catalogue entry as its message where a refusal needs words of its own (a time, a time zone).
      if (isErrorCode(issue.message))
        return [{ field: at.join('.'), message: messageOf(issue.message, request.lang), reason: issue.message }];
      return [{ field: at.join('.'), message: issue.message ?? 'invalid' }];
    });
    return replyInvalid(reply, request, fields);
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
