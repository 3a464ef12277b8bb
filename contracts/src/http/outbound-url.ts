import { z } from 'zod';

/** The mark an outbound URL field carries in the route table's schemas and in OpenAPI: its allowed schemes. */
export const OUTBOUND_URL_MARK = 'x-outbound-url';
export type OutboundScheme = 'http:' | 'https:' | 'smtp:' | 'smtps:';

/**
 * A URL the platform will call that a tenant sets (a notification channel, a forwarding target, a webhook). Every
 * such field uses this schema: the security walk finds them by its mark, and the handler that saves one asks the
 * outbound guard (`OutboundHttp.refusesLiteral`) before storing it; the guard checks again at every call.
 */
export const outboundUrl = (schemes: readonly OutboundScheme[]) =>
  z
    .string()
    .trim()
    .max(512)
    .url()
    // Checks run on after .url() refuses a value: one that is no URL at all must not throw here.
    .refine(
      (u) => URL.canParse(u) && schemes.includes(new URL(u).protocol as OutboundScheme),
      `${schemes.map((s) => `${s}//`).join(' or ')} URL`,
    )
    // An SMTP URL's query would set the mail client's own options (a proxy among them): it names a server, nothing more.
    .refine(
      (u) => !/^smtps?:/i.test(u) || !URL.canParse(u) || (new URL(u).search === '' && new URL(u).hash === ''),
      'no options in an SMTP URL',
    )
    .meta({ [OUTBOUND_URL_MARK]: [...schemes] });

/** The mark of a URL that only the browser opens (a camera's HLS stream): the platform never calls it, so no outbound guard applies. */
export const BROWSER_URL_MARK = 'x-browser-url';
