import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import type { OutboundAnswer, OutboundHttp, OutboundRequest } from '@iot/contracts/ports/outbound-http.ts';
import { literalAddress, refusedRange, type AllowList } from './address.ts';
import { asOutboundError, OutboundError } from './errors.ts';

/** Resolves a name to all its addresses (dns.lookup by default; tests give a resolver of their own). */
export type Resolve = (host: string) => Promise<Array<{ address: string; family: number }>>;

export interface OutboundOptions {
  /** Ranges the operator allows (OUTBOUND_ALLOW_CIDRS). */
  allow: AllowList;
  resolve?: Resolve;
  timeoutMs?: number;
  /** Redirects followed, each checked like the first URL. */
  maxRedirects?: number;
  /** Bytes of an answer read; the rest is dropped. */
  maxAnswerBytes?: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The outbound guard (contracts/src/ports/outbound-http.ts) over undici: a name is resolved in the connection's own
 * `lookup`, every address checked there, and the socket opened to the checked address (a second resolution that
 * could answer another address never happens); an IP literal is checked before any connection is tried. Redirects
 * are followed here, one hop at a time, each through the same checks.
 */
export function createOutboundHttp(options: OutboundOptions): OutboundHttp & { close(): Promise<void> } {
  const resolve: Resolve = options.resolve ?? ((host) => dnsLookup(host, { all: true, order: 'verbatim' }));
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRedirects = options.maxRedirects ?? 3;
  const maxAnswerBytes = options.maxAnswerBytes ?? 64 * 1024;

  /** Every address a host stands for, each one allowed; rejects OUTBOUND_REFUSED naming the first refused. */
  async function checked(host: string): Promise<Array<{ address: string; family: 4 | 6 }>> {
    const literal = literalAddress(host);
    let addresses: Array<{ address: string; family: number }>;
    if (literal) addresses = [{ address: literal, family: literal.includes(':') ? 6 : 4 }];
    else {
      try {
        addresses = await resolve(host.replace(/\.$/, ''));
      } catch (error) {
        throw new OutboundError('CONNECT_FAILED', `${host} does not resolve: ${(error as Error).message}`, { cause: error });
      }
      if (addresses.length === 0) throw new OutboundError('CONNECT_FAILED', `${host} does not resolve`);
    }
    for (const { address } of addresses) {
      const range = refusedRange(address, options.allow);
      if (range) throw new OutboundError('OUTBOUND_REFUSED', `${host} is ${address} (${range}): refused`);
    }
    return addresses.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  }

  // net.connect calls this for a name (never for an IP literal, which `request` checks before): the checked addresses are what it connects to.
  const lookup: LookupFunction = (host, lookupOptions, callback) => {
    checked(host).then(
      (addresses) => {
        const wanted = lookupOptions.family ? addresses.filter((a) => a.family === lookupOptions.family) : addresses;
        if (wanted.length === 0)
          return callback(new OutboundError('CONNECT_FAILED', `${host} has no IPv${lookupOptions.family} address`), '');
        if (lookupOptions.all) callback(null, wanted);
        else callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (error: Error) => callback(error, ''),
    );
  };
  const agent = new Agent({ connect: { lookup, timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });

  async function readCapped(body: AsyncIterable<Uint8Array> & { destroy(): unknown }): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      chunks.push(Buffer.from(chunk));
      size += chunk.length;
      if (size >= maxAnswerBytes) {
        body.destroy();
        break;
      }
    }
    return Buffer.concat(chunks).subarray(0, maxAnswerBytes).toString('utf8');
  }

  return {
    async request(target: string, init: OutboundRequest = {}): Promise<OutboundAnswer> {
      const signal = AbortSignal.timeout(init.timeoutMs ?? timeoutMs);
      let url = new URL(target);
      let method = init.method ?? 'GET';
      let body = init.body;
      for (let hop = 0; ; hop++) {
        // The log names the host and path only: a webhook's key and an SMS call's signature ride in the query.
        const where = `${method} ${url.origin}${url.pathname}`;
        if (url.protocol !== 'http:' && url.protocol !== 'https:')
          throw new OutboundError('OUTBOUND_REFUSED', `${where}: ${url.protocol} is not http(s)`);
        const literal = literalAddress(url.hostname);
        if (literal) await checked(literal);
        let answer;
        try {
          answer = await request(url, { method, headers: init.headers, body, dispatcher: agent, signal });
        } catch (error) {
          throw asOutboundError(error, where);
        }
        const location = answer.headers.location;
        if (REDIRECTS.has(answer.statusCode) && typeof location === 'string') {
          await answer.body.dump();
          if (hop >= maxRedirects) throw new OutboundError('TOO_MANY_REDIRECTS', `${where}: more than ${maxRedirects} redirects`);
          url = new URL(location, url);
          if (answer.statusCode === 303 || ((answer.statusCode === 301 || answer.statusCode === 302) && method === 'POST')) {
            method = 'GET';
            body = undefined;
          }
          continue;
        }
        let text: string;
        try {
          text = await readCapped(answer.body);
        } catch (error) {
          throw asOutboundError(error, where);
        }
        return { status: answer.statusCode, ok: answer.statusCode >= 200 && answer.statusCode < 300, text };
      }
    },
    async address(host: string) {
      return (await checked(host))[0]!;
    },
    refusesLiteral(target: string): boolean {
      let host: string;
      try {
        host = new URL(target).hostname;
      } catch {
        return false;
      }
      const literal = literalAddress(host);
      return literal !== null && refusedRange(literal, options.allow) !== null;
    },
    close: () => agent.close(),
  };
}
