import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { routes, type ForwardRuleFields } from '@iot/contracts';
import { BROWSER_URL_MARK, OUTBOUND_URL_MARK } from '@iot/contracts/http/outbound-url.ts';
import { handleCommand } from '@iot/command/handler.ts';
import { notifySettingsDecider, notifySettingsStream } from '@iot/command/notify/settings.ts';
import { forwardRuleDecider, forwardRuleStream, forwardServerDecider, forwardServerStream } from '@iot/command/forward/decide.ts';
import { waitFor } from '../harness/process.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import type { JsonSchema } from './walk.ts';

/**
 * Issue 24: no server-side request forgery through what a tenant sets. The security walk finds every outbound URL
 * field of the route table by the shared `outboundUrl` schema's mark; each one is refused at save when it names an
 * internal address in any spelling, and, stored anyway (a value saved before the check existed, or a name that
 * resolves to such an address), refused at call time before any connection: listeners on loopback count none,
 * and the tenant's notification record shows only the class `OUTBOUND_REFUSED`.
 * Only loopback listeners are ever called; the private and metadata addresses are tried at save only, which connects nowhere.
 */
let sut: TestPlatform;
const TENANT = 'oscarout';
let token = '';
let deviceId = '';
let productId = '';
/** Raw TCP listeners on refused loopback addresses: every connection counted, whatever the protocol. */
const counted: { server: Server; connections: number }[] = [];
let v4Port = 0;
let v6Port = 0;
/** An HTTP server on the one address the operator allows (127.0.0.3), answering a redirect to where a case says. */
let allowed: HttpServer;
let allowedPort = 0;
const allowedSeen: string[] = [];
let redirectTo = '';
/** What it answers when it does not redirect. */
let answer = { status: 200, body: '{"errcode":0}' };

async function countingListener(host: string): Promise<number> {
  const entry = { server: createServer((socket) => socket.destroy()), connections: 0 };
  entry.server.on('connection', () => entry.connections++);
  await new Promise<void>((resolve) => entry.server.listen(0, host, resolve));
  counted.push(entry);
  return (entry.server.address() as AddressInfo).port;
}
const connections = () => counted.reduce((n, c) => n + c.connections, 0);

const ok = (r: { status: number; body: string; json: { data: any } | null }) => {
  expect(r.status, r.body).toBe(200);
  return r.json!.data;
};

// ---------------------------------------------------------------- the walk: every outbound URL field of the route table
type Field = { route: string; method: string; path: string; at: string[]; schemes: string[]; body: JsonSchema };
/** Every property of a schema, with its path, its own schema, and whether it is required where it sits. */
function* properties(schema: JsonSchema, at: string[] = []): Generator<{ at: string[]; schema: JsonSchema }> {
  const options = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])];
  for (const option of options) {
    if (option !== schema) yield* properties(option, at);
    else {
      if (at.length > 0) yield { at, schema };
      for (const [key, prop] of Object.entries(schema.properties ?? {})) yield* properties(prop, [...at, key]);
      if (schema.items) yield* properties(schema.items, [...at, '0']);
    }
  }
}
const jsonSchemaOf = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
const mark = (schema: JsonSchema) => (schema as Record<string, unknown>)[OUTBOUND_URL_MARK] as string[] | undefined;

function outboundFields(): { marked: Field[]; unmarked: string[] } {
  const marked: Field[] = [];
  const unmarked: string[] = [];
  for (const [name, spec] of Object.entries(routes)) {
    for (const [kind, schema] of [
      ['body', 'body' in spec ? spec.body : undefined],
      ['query', 'query' in spec ? spec.query : undefined],
    ] as const) {
      if (!schema) continue;
      const json = jsonSchemaOf(schema as z.ZodType);
      for (const { at, schema: prop } of properties(json)) {
        const schemes = mark(prop);
        // A URL only the browser opens (a camera's stream) is never called by the platform: nothing to guard.
        if (BROWSER_URL_MARK in prop) continue;
        if (schemes && kind === 'body') marked.push({ route: name, method: spec.method, path: spec.path, at, schemes, body: json });
        // A field that takes a URL, or is named like one, without the mark would be called unguarded.
        else if (
          !schemes &&
          (prop.format === 'uri' || (prop.type === 'string' && /(url|uri|webhook|endpoint|callback|host)$/i.test(at.at(-1) ?? '')))
        )
          unmarked.push(`${name} ${kind}.${at.join('.')}`);
        else if (schemes) unmarked.push(`${name} ${kind}.${at.join('.')} (a URL in a query string)`);
      }
    }
  }
  return { marked, unmarked };
}

/**
 * The fields the walk tries: every marked field of the route table, and the channels known to call out even if
 * their mark went missing (the first case fails then, these still try them).
 */
function walked(): Field[] {
  const { marked } = outboundFields();
  const settings = routes['notify.saveSettings'];
  const body = jsonSchemaOf(settings.body);
  const missing = Object.keys(channelOf).filter(
    (name) => !marked.some((f) => f.route === 'notify.saveSettings' && f.at.join('.') === name),
  );
  return [
    ...marked,
    ...missing.map((name) => ({
      route: 'notify.saveSettings',
      method: settings.method,
      path: settings.path,
      at: [name],
      schemes: [name === 'smtpUrl' ? 'smtp:' : 'http:'],
      body,
    })),
  ];
}

/** A body for a route: its required properties filled plainly, and `value` at the field's path. */
function bodyFor(field: Field, value: unknown): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of field.body.required ?? []) body[key] = field.body.properties?.[key]?.type === 'number' ? 1 : 'walk';
  let into = body;
  for (const key of field.at.slice(0, -1)) into = (into[key] ??= {}) as Record<string, unknown>;
  into[field.at.at(-1)!] = value;
  return body;
}

// ---------------------------------------------------------------- refused spellings
/** Hosts a URL may name that are refused as written: every one is refused at save. */
const refusedAtSave = (v4: number, v6: number) => [
  `127.0.0.1:${v4}`,
  `localhost:${v4}`,
  `LOCALHOST.:${v4}`,
  `api.localhost:${v4}`,
  `0x7f000001:${v4}`,
  `2130706433:${v4}`,
  `0177.0.0.1:${v4}`,
  `127.1:${v4}`,
  `127.0.0.1.:${v4}`,
  `[::ffff:127.0.0.1]:${v4}`,
  `[::1]:${v6}`,
  `0.0.0.0:${v4}`,
  '10.0.0.1:5432',
  '172.16.0.1',
  '192.168.1.1',
  '100.64.0.1',
  '169.254.169.254',
  '[fe80::1]',
  '[fd00::1]',
  '[::ffff:169.254.169.254]',
  '224.0.0.1',
];
/** The loopback ones, which a listener here counts: tried at call time too. */
const refusedAtCall = (v4: number, v6: number) => refusedAtSave(v4, v6).slice(0, 11);

/** How each outbound field is called: what completes its channel, which record shows it. */
const channelOf: Record<string, { sendWay: string; url: (host: string) => string; secrets: (url: string) => Record<string, string> }> = {
  smtpUrl: { sendWay: 'email', url: (h) => `smtp://walker:Walk%23pw1@${h}`, secrets: (url) => ({ smtpUrl: url }) },
  smsEndpoint: {
    sendWay: 'sms',
    url: (h) => `http://${h}/sms`,
    secrets: () => ({ smsAccessKeyId: 'walkKeyId', smsAccessKeySecret: 'walkKeySecret#1' }),
  },
  wecomWebhook: {
    sendWay: 'wechat',
    url: (h) => `http://${h}/cgi-bin/webhook/send?key=walkKey`,
    secrets: (url) => ({ wecomWebhook: url }),
  },
  dingtalkWebhook: {
    sendWay: 'wechat',
    url: (h) => `http://${h}/robot/send?access_token=walkToken`,
    secrets: (url) => ({ dingtalkWebhook: url, dingtalkSecret: 'SECwalk' }),
  },
};

/** Stores a channel URL as an older release would have, past today's save check: the call-time guard must hold alone. */
async function storeUnchecked(field: string, url: string) {
  const channel = channelOf[field]!;
  await sut.db.pool.query(
    `insert into notify_channel_secrets (tenant_id, secrets) values ($1, $2) on conflict (tenant_id) do update set secrets = $2`,
    [TENANT, JSON.stringify(channel.secrets(url))],
  );
  await handleCommand(
    sut.platform.context.store,
    notifySettingsDecider,
    notifySettingsStream(TENANT),
    {
      type: 'SaveNotifySettings',
      fields: {
        smtpFrom: null,
        smsEndpoint: field === 'smsEndpoint' ? url : null,
        smsSignName: 'Walk',
        smsTemplateCode: 'SMS_1',
        tenantPerMinute: null,
        contactPerMinute: null,
        quietHours: null,
      },
      secretsChanged: ['smtpUrl'],
    },
    { actor: { kind: 'system', id: 'older-release' }, tenantId: TENANT },
  );
  await sut.platform.runner.catchUp();
}

/** Raises an alarm and lets the delivery worker try every record once: answers the records of the way asked. */
async function raiseAndDeliver(sendWay: string) {
  const rows = [{ deviceId, variable: 'pressure', type: 'device', level: 3, trigger: 'manual', faultFlag: true, value: 1 }];
  const alarmId = ok(await sut.call('alarm.manual', { token, body: { rows } })).ids[0] as string;
  await sut.platform.runner.catchUp();
  await sut.platform.delivery!.drain();
  return (
    await sut.db.pool.query<{ status: string; error: string | null; attempts: number; via: string | null }>(
      'select status, error, attempts, via from notify_records where alarm_id = $1 and send_way = $2',
      [alarmId, sendWay],
    )
  ).rows;
}

beforeAll(async () => {
  v4Port = await countingListener('127.0.0.1');
  v6Port = await countingListener('::1');
  allowed = createHttpServer((req, res) => {
    allowedSeen.push(req.url!);
    if (redirectTo) res.writeHead(302, { location: redirectTo }).end();
    else res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
  await new Promise<void>((resolve) => allowed.listen(0, '127.0.0.3', resolve));
  allowedPort = (allowed.address() as AddressInfo).port;
  sut = await startTestPlatform({
    OUTBOUND_ALLOW_CIDRS: '127.0.0.3/32',
    // One try per raise (the next waits a minute), and no storm cap in the way of the walk's many alarms.
    NOTIFY_RETRY_MS: '60000',
    NOTIFY_TENANT_PER_MIN: '100000',
    NOTIFY_CONTACT_PER_MIN: '100000',
  });
  await sut.seedTenant({ id: TENANT, name: 'OscarOut', adminUsername: 'oscarOutAdmin', adminPassword: 'Oscar#pw12' });
  token = await sut.login('oscarOutAdmin', 'Oscar#pw12');
  productId = ok(await sut.call('product.create', { token, body: { name: 'Pump', code: 'POUT', type: 'direct' } })).id;
  ok(
    await sut.call('product.defineFunction', {
      token,
      body: { productId, function: { type: 'property', name: 'p', identifier: 'pressure', dataType: { type: 'float' } } },
    }),
  );
  ok(await sut.call('product.publish', { token, body: { id: productId } }));
  deviceId = ok(await sut.call('device.create', { token, body: { sn: 'SN-OUT-1', name: 'pump', productId } })).id;
  const contactId = ok(
    await sut.call('contact.create', {
      token,
      body: { name: 'duty', email: 'duty@oscarout.example', phone: '13800000077' },
    }),
  ).id;
  const templateId = ok(
    await sut.call('notifyTemplate.create', {
      token,
      body: { code: 'T', name: 't', type: 'wechat', subject: 'alarm {{device}}', content: '{{device}} = {{value}}' },
    }),
  ).id;
  await sut.platform.runner.catchUp();
  ok(
    await sut.call('notifyConfig.create', {
      token,
      // A WeChat-type configuration: its records go to the group robots, and by email and SMS to the contact.
      body: { name: 'all', source: 'alarm', type: 'wechat', templateId, sendWays: ['email', 'sms'], contactIds: [contactId] },
    }),
  );
  await sut.platform.runner.catchUp();
}, 180_000);
afterAll(async () => {
  await sut?.stop();
  for (const { server } of counted) await new Promise<void>((resolve) => server.close(() => resolve()));
  await new Promise<void>((resolve) => allowed?.close(() => resolve()));
});

describe('every outbound URL field of the route table', () => {
  it('is marked with the shared outboundUrl schema: no field takes a URL unguarded', () => {
    const { marked, unmarked } = outboundFields();
    expect(unmarked).toEqual([]);
    expect(marked.map((f) => `${f.route} ${f.at.join('.')}`).sort()).toEqual(
      [
        ...Object.keys(channelOf).map((field) => `notify.saveSettings ${field}`),
        'forwardServer.createHttp url',
        'forwardServer.updateHttp url',
      ].sort(),
    );
  });

  it('refuses at save a URL naming a loopback, private, link-local, metadata or reserved address, in every spelling, in both languages', async () => {
    for (const field of walked()) {
      const scheme = field.schemes[0]!;
      for (const host of refusedAtSave(v4Port, v6Port)) {
        const url = `${scheme}//${host}/`;
        for (const lang of ['en', 'zh'] as const) {
          const r = await sut.call(field.method, field.path, { token, body: bodyFor(field, url), headers: { lang } });
          expect(
            [r.status, r.json?.code, r.json?.data?.error, r.json?.data?.details],
            `${field.route} ${field.at.join('.')} = ${url}`,
          ).toEqual([400, 400, 'OUTBOUND_URL_REFUSED', { field: field.at.join('.') }]);
          expect(r.json!.msg).toBe(
            lang === 'en'
              ? 'This address is not allowed: no loopback, internal, link-local or reserved address'
              : '该地址不允许：不能使用本机、内网、链路本地或保留地址',
          );
        }
      }
      // Not a scheme of the field, or no URL at all: refused by the schema.
      const smtpOptions = scheme.startsWith('smtp') ? [`${scheme}//mail.example.com:25/?proxy=http://127.0.0.1:${v4Port}`] : [];
      for (const value of ['file:///etc/passwd', 'gopher://127.0.0.1:25/', 'not a url', '//127.0.0.1/', ...smtpOptions]) {
        const wrong = await sut.call(field.method, field.path, { token, body: bodyFor(field, value) });
        expect([wrong.status, wrong.json?.data?.error], `${field.at.join('.')} = ${value}`).toEqual([400, 'VALIDATION']);
      }
    }
    // Nothing of it was stored.
    const stored = ok(await sut.call('notify.settings', { token }));
    expect(Object.values(stored.tenant.secrets).some(Boolean)).toBe(false);
    expect(stored.tenant.smsEndpoint).toBeNull();
  });

  it('refuses at call time, before any connection, a stored URL naming a loopback address: the record shows only OUTBOUND_REFUSED', async () => {
    const before = connections();
    for (const field of walked().filter((f) => f.route === 'notify.saveSettings')) {
      const channel = channelOf[field.at.join('.')]!;
      for (const host of refusedAtCall(v4Port, v6Port)) {
        const url = channel.url(host);
        await storeUnchecked(field.at.join('.'), url);
        const records = await raiseAndDeliver(channel.sendWay);
        expect(
          records.map((r) => [r.status, r.attempts, r.error]),
          `${field.at.join('.')} = ${url}`,
        ).toEqual([['unsent', 1, 'OUTBOUND_REFUSED']]);
      }
    }
    // The records above are the later signal: every try was made and failed, and no listener saw a connection.
    expect(connections()).toBe(before);
    const log = sut.logLines.filter((l) => l.includes('notification not delivered')).join('\n');
    expect(log).toContain('OUTBOUND_REFUSED');
    expect(log).toContain('(loopback)');
    // The log names host and path only, never a webhook's key.
    expect(log).not.toContain('walkKey');
    expect(log).not.toContain('walkToken');
  });

  it('refuses at call time, before any connection, a stored forwarding target naming a loopback address: its outbox row shows only OUTBOUND_REFUSED', async () => {
    const before = connections();
    for (const [i, host] of refusedAtCall(v4Port, v6Port).entries()) {
      const serverId = `walk-forward-${i}`;
      // Stored as an older release would have, past today's save check.
      const fields = {
        type: 'http',
        name: serverId,
        ip: '127.0.0.1',
        port: v4Port,
        url: `http://${host}/in`,
        username: null,
        clientId: null,
        tls: false,
        remark: null,
        hasPassword: false,
      } as const;
      const system = { actor: { kind: 'system', id: 'older-release' }, tenantId: TENANT } as const;
      await handleCommand(
        sut.platform.context.store,
        forwardServerDecider,
        forwardServerStream(TENANT, serverId),
        { type: 'Create', id: serverId, fields },
        system,
      );
      const rule: ForwardRuleFields = {
        name: serverId,
        productIds: [productId],
        deviceIds: [deviceId],
        messageTypes: ['telemetry'],
        serverId,
        topic: null,
        payloadTemplate: null,
        status: 'enabled',
      };
      await handleCommand(
        sut.platform.context.store,
        forwardRuleDecider,
        forwardRuleStream(TENANT, serverId),
        { type: 'Create', id: serverId, fields: rule },
        system,
      );
      await sut.platform.runner.catchUp();
      const reactor = sut.platform.forward.reactor!;
      await reactor.load();
      reactor.observe({ deviceId, tenantId: TENANT, productId }, [
        { tenantId: TENANT, deviceId, variable: 'pressure', ts: new Date(), value: 1, text: null },
      ]);
      await reactor.flush();
      const rows = await waitFor(`${host}: tried`, async () => {
        await sut.platform.forward.delivery!.drain();
        const found = await sut.db.pool.query<{ attempts: number; error: string | null }>(
          'select attempts, error from forward_outbox where server_id = $1',
          [serverId],
        );
        return found.rows[0]?.attempts ? found.rows : null;
      });
      expect(
        rows.map((r) => r.error),
        host,
      ).toEqual(['OUTBOUND_REFUSED']);
      await handleCommand(
        sut.platform.context.store,
        forwardRuleDecider,
        forwardRuleStream(TENANT, serverId),
        { type: 'Delete', id: serverId },
        system,
      );
      await sut.db.pool.query('delete from forward_outbox where server_id = $1', [serverId]);
    }
    expect(connections()).toBe(before);
  });

  it("takes only a server and a login from a stored SMTP URL, never the mail client's options (a proxy to loopback)", async () => {
    const before = connections();
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.3', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    for (const query of [`proxy=http://127.0.0.1:${v4Port}`, `proxy=socks5://127.0.0.1:${v4Port}`, `host=127.0.0.1&port=${v4Port}`]) {
      await storeUnchecked('smtpUrl', `smtp://walker:Walk%23pw1@127.0.0.3:${closedPort}/?${query}`);
      expect(
        (await raiseAndDeliver('email')).map((r) => r.error),
        query,
      ).toEqual(['CONNECT_FAILED']);
    }
    expect(connections()).toBe(before);
  });

  it('follows a redirect from an allowed server only to an allowed address', async () => {
    const before = connections();
    const seenBefore = allowedSeen.length;
    for (const [field, target] of [
      ['wecomWebhook', `http://127.0.0.1:${v4Port}/internal`],
      ['dingtalkWebhook', `http://[::1]:${v6Port}/internal`],
      ['smsEndpoint', `http://localhost:${v4Port}/internal`],
    ] as const) {
      redirectTo = target;
      const channel = channelOf[field]!;
      // The allowed server passes the save check: the operator allowed its address.
      const url = channel.url(`127.0.0.3:${allowedPort}`);
      const saved = await sut.call('notify.saveSettings', {
        token,
        body: {
          smtpUrl: null,
          wecomWebhook: null,
          dingtalkWebhook: null,
          smsEndpoint: null,
          ...(field === 'smsEndpoint'
            ? { smsEndpoint: url, smsSignName: 'Walk', smsTemplateCode: 'SMS_1', ...channel.secrets(url) }
            : channel.secrets(url)),
        },
      });
      expect(saved.status, saved.body).toBe(200);
      await sut.platform.runner.catchUp();
      const records = await raiseAndDeliver(channel.sendWay);
      expect(
        records.map((r) => [r.status, r.error]),
        field,
      ).toEqual([['unsent', 'OUTBOUND_REFUSED']]);
    }
    // The allowed server was called each time; the addresses it sent the calls on to, never.
    expect(allowedSeen.length - seenBefore).toBe(3);
    expect(connections()).toBe(before);
  });

  it("shows the tenant a class of failure, never the peer's answer nor what tells an open port from a closed one", async () => {
    redirectTo = '';
    const secret = 'pg_hba.conf: host all all 10.0.0.0/8 trust';
    const url = channelOf.wecomWebhook!.url(`127.0.0.3:${allowedPort}`);
    ok(
      await sut.call('notify.saveSettings', {
        token,
        body: { smtpUrl: null, dingtalkWebhook: null, smsEndpoint: null, wecomWebhook: url },
      }),
    );
    await sut.platform.runner.catchUp();
    for (const [status, body, errorClass] of [
      [400, JSON.stringify({ error: secret }), 'HTTP_STATUS_4XX'],
      [503, secret, 'HTTP_STATUS_5XX'],
      [200, JSON.stringify({ errcode: 93000, errmsg: secret }), 'ANSWER_REJECTED'],
      [200, `<html>${secret}</html>`, 'ANSWER_INVALID'],
    ] as const) {
      answer = { status, body };
      expect((await raiseAndDeliver('wechat')).map((r) => r.error)).toEqual([errorClass]);
    }
    // A closed port of the allowed address: a failed connection, nothing more.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.3', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    ok(
      await sut.call('notify.saveSettings', {
        token,
        body: { wecomWebhook: channelOf.wecomWebhook!.url(`127.0.0.3:${closedPort}`) },
      }),
    );
    await sut.platform.runner.catchUp();
    expect((await raiseAndDeliver('wechat')).map((r) => r.error)).toEqual(['CONNECT_FAILED']);
    const listed = await sut.call('notifyRecord.list', { token, query: { sendWay: 'wechat', pageSize: '100' } });
    expect(listed.status).toBe(200);
    expect(listed.body).not.toContain('pg_hba');
    expect(listed.body).not.toContain('ECONNREFUSED');
    // The platform log keeps why.
    expect(sut.logLines.join('')).toContain('HTTP 400');
    answer = { status: 200, body: '{"errcode":0}' };
  });
});
