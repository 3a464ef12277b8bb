import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { literalAddress, parseAllowList, refusedRange } from './address.ts';
import { errorClassOf } from './errors.ts';
import { createOutboundHttp, type Resolve } from './http.ts';

/**
 * The outbound guard against every spelling of a refused address. Only loopback listeners are ever called: the
 * private, link-local and metadata addresses are checked by `address()` and `refusesLiteral()`, which never connect.
 */
const connections: Record<string, number> = { v4: 0, v6: 0, allowed: 0 };
const servers: Server[] = [];
const ports: Record<string, number> = {};
/** What the allowed server answers: a redirect to where a test says, or a plain answer. */
let redirectTo: string | null = null;

async function listen(name: string, host: string, handler: Parameters<typeof createServer>[1]) {
  const server = createServer(handler);
  server.on('connection', (_socket: Socket) => (connections[name] = (connections[name] ?? 0) + 1));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  servers.push(server);
  ports[name] = (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  const answer: Parameters<typeof createServer>[1] = (_req, res) => res.end('{"internal":"secret answer"}');
  await listen('v4', '127.0.0.2', answer);
  await listen('v6', '::1', answer);
  await listen('allowed', '127.0.0.1', (_req, res) => {
    if (redirectTo) res.writeHead(302, { location: redirectTo }).end();
    else res.end('fine');
  });
});
afterAll(async () => {
  for (const s of servers) await new Promise<void>((resolve) => s.close(() => resolve()));
});

/** A resolver of test names, as a DNS server of the attacker's would answer. */
const names: Record<string, string[]> = {
  'loopback.test': ['127.0.0.2'],
  'metadata.test': ['169.254.169.254'],
  'mixed.test': ['93.184.215.14', '10.0.0.1'],
  'public.test': ['93.184.215.14'],
  'allowed.test': ['127.0.0.1'],
};
const testResolver: Resolve = async (host) => {
  const found = names[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const refusedSpellings = [
  '127.0.0.1',
  '127.0.0.2',
  '127.255.255.254',
  '[::1]',
  '0.0.0.0',
  '[::]',
  '0x7f000001',
  '2130706433',
  '0177.0.0.1',
  '127.1',
  '0x7f.1',
  '127.0.0.1.',
  'localhost',
  'LOCALHOST.',
  'api.localhost',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '10.0.0.1',
  '172.16.0.1',
  '172.31.255.255',
  '192.168.1.1',
  '100.64.0.1',
  '169.254.169.254',
  '169.254.0.1',
  '[fe80::1]',
  '[fc00::1]',
  '[fd12:3456::1]',
  '224.0.0.1',
  '[ff02::1]',
  '255.255.255.255',
  '240.0.0.1',
  '[::ffff:10.0.0.1]',
  '[::ffff:169.254.169.254]',
  '[64:ff9b::a9fe:a9fe]',
  '[2002:a9fe:a9fe::1]',
];

describe('the outbound guard', () => {
  const sut = createOutboundHttp({ allow: [], resolve: testResolver, timeoutMs: 5_000 });
  afterAll(() => sut.close());

  it.each(refusedSpellings)('refuses %s as written, at save and at call', async (host) => {
    expect(sut.refusesLiteral(`http://${host}:8080/hook`)).toBe(true);
    expect(sut.refusesLiteral(`smtp://${host}:25`)).toBe(true);
    const refused = await sut.address(host).catch((e: unknown) => e);
    expect(errorClassOf(refused)).toBe('OUTBOUND_REFUSED');
  });

  it('takes global unicast addresses and names as written', () => {
    for (const host of ['93.184.215.14', '[2606:2800:220:1:248:1893:25c8:1946]', 'oapi.dingtalk.com', 'qyapi.weixin.qq.com'])
      expect(sut.refusesLiteral(`https://${host}/robot`), host).toBe(false);
    expect(literalAddress('0x7f000001')).toBe('127.0.0.1');
    expect(literalAddress('oapi.dingtalk.com')).toBeNull();
    expect(refusedRange('::ffff:127.0.0.1', [])).toBe('loopback');
    expect(refusedRange('100.64.0.1', [])).toBe('carrierGradeNat');
  });

  it('refuses a name when any address it resolves to is refused', async () => {
    for (const host of ['loopback.test', 'metadata.test', 'mixed.test'])
      expect(errorClassOf(await sut.address(host).catch((e: unknown) => e)), host).toBe('OUTBOUND_REFUSED');
    expect(await sut.address('public.test')).toEqual({ address: '93.184.215.14', family: 4 });
    expect(errorClassOf(await sut.address('nowhere.test').catch((e: unknown) => e))).toBe('CONNECT_FAILED');
  });

  it('calls no loopback listener, whatever the spelling or the name, and tells nothing of its answer', async () => {
    const before = { ...connections };
    const targets = [
      `http://127.0.0.2:${ports.v4}/`,
      `http://0x7f000002:${ports.v4}/`,
      `http://2130706434:${ports.v4}/`,
      `http://0177.0.0.2:${ports.v4}/`,
      `http://127.2:${ports.v4}/`,
      `http://127.0.0.2.:${ports.v4}/`,
      `http://[::ffff:127.0.0.2]:${ports.v4}/`,
      `http://loopback.test:${ports.v4}/`,
      `http://[::1]:${ports.v6}/`,
      `http://localhost:${ports.allowed}/`,
      `http://127.0.0.1:${ports.allowed}/`,
    ];
    for (const url of targets) {
      const refused = await sut.request(url, { method: 'POST', body: '{}' }).catch((e: unknown) => e);
      expect(errorClassOf(refused), url).toBe('OUTBOUND_REFUSED');
      expect(String(refused)).not.toContain('secret answer');
    }
    // A closed port on a refused address fails the same way as an open one: nothing to scan.
    expect(errorClassOf(await sut.request('http://127.0.0.2:1/').catch((e: unknown) => e))).toBe('OUTBOUND_REFUSED');
    expect(connections).toEqual(before);
  });

  it('refuses a scheme other than http(s)', async () => {
    expect(errorClassOf(await sut.request('file:///etc/passwd').catch((e: unknown) => e))).toBe('OUTBOUND_REFUSED');
  });
});

describe('with a range the operator allows', () => {
  const sut = createOutboundHttp({ allow: parseAllowList('127.0.0.1/32'), resolve: testResolver, timeoutMs: 5_000 });
  afterAll(() => sut.close());

  it('calls an allowed address, connecting to the address it checked (the name is resolved once, by the guard)', async () => {
    redirectTo = null;
    const viaName = await sut.request(`http://allowed.test:${ports.allowed}/`);
    expect([viaName.status, viaName.text]).toEqual([200, 'fine']);
    expect((await sut.request(`http://127.0.0.1:${ports.allowed}/`)).text).toBe('fine');
    expect(sut.refusesLiteral(`http://127.0.0.1:${ports.allowed}/`)).toBe(false);
    expect(sut.refusesLiteral(`http://127.0.0.2:${ports.allowed}/`)).toBe(true);
  });

  it('resolves a name once per connection and connects to what it checked: a second answer cannot swap the address', async () => {
    redirectTo = null;
    const asked: string[] = [];
    // A rebinding name: the allowed address first, loopback outside the range on every later question; the name is
    // in no real resolver, so a connection that resolved it again by itself would fail.
    const rebinding = createOutboundHttp({
      allow: parseAllowList('127.0.0.1/32'),
      resolve: async (host) => {
        asked.push(host);
        return [{ address: asked.length === 1 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
      },
    });
    const before = connections.v4!;
    const answer = await rebinding.request(`http://rebind.test:${ports.allowed}/`);
    expect([answer.status, answer.text, asked]).toEqual([200, 'fine', ['rebind.test']]);
    await rebinding.close();
    expect(connections.v4).toBe(before);
  });

  it('checks every redirect: from the allowed server to a refused address, nothing reaches it', async () => {
    const before = { ...connections };
    for (const target of [`http://127.0.0.2:${ports.v4}/`, `http://[::1]:${ports.v6}/`, `http://loopback.test:${ports.v4}/`]) {
      redirectTo = target;
      const refused = await sut.request(`http://127.0.0.1:${ports.allowed}/hook`, { method: 'POST', body: '{}' }).catch((e: unknown) => e);
      expect(errorClassOf(refused), target).toBe('OUTBOUND_REFUSED');
    }
    expect([connections.v4, connections.v6]).toEqual([before.v4, before.v6]);
    expect(connections.allowed).toBeGreaterThan(before.allowed!);
    // A loop of redirects ends after a few hops.
    redirectTo = `http://127.0.0.1:${ports.allowed}/again`;
    expect(errorClassOf(await sut.request(`http://127.0.0.1:${ports.allowed}/`).catch((e: unknown) => e))).toBe('TOO_MANY_REDIRECTS');
    redirectTo = null;
  });

  it('answers a closed port of an allowed address as a failed connection', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(errorClassOf(await sut.request(`http://127.0.0.1:${port}/`).catch((e: unknown) => e))).toBe('CONNECT_FAILED');
  });
});

describe('the allow list', () => {
  it('reads CIDRs and bare addresses, and refuses anything else', () => {
    const allow = parseAllowList(' 10.20.0.0/16, fd00::/8 ,192.0.2.7,::ffff:172.16.0.0/108');
    expect(refusedRange('10.20.3.4', allow)).toBeNull();
    expect(refusedRange('10.21.0.1', allow)).toBe('private');
    expect(refusedRange('fd00::1', allow)).toBeNull();
    expect(refusedRange('192.0.2.7', allow)).toBeNull();
    expect(refusedRange('172.16.0.9', allow)).toBeNull();
    expect(refusedRange('::ffff:10.20.0.1', allow)).toBeNull();
    expect(() => parseAllowList('10.0.0.0/33')).toThrow();
    expect(() => parseAllowList('example.com')).toThrow();
    expect(parseAllowList('')).toEqual([]);
  });
});
