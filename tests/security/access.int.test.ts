import { tenantAdminId } from '@iot/command/tenant/handlers.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perm, routes as routeTable } from '@iot/contracts';
import { startTestPlatform, ADMIN_PASSWORD, type TestPlatform } from '../harness/platform.ts';
import { declaredPermission, requestOf, routesOf, type IdPicker, type Route } from './walk.ts';
import { malformed } from '../harness/api.ts';

/**
 * Security walks over every route of the OpenAPI document (a new route is covered without touching this file):
 * tenant isolation, permission checks, and no password, secret or token in any answer, log line or event.
 */
let sut: TestPlatform;
let routes: Route[];
const A = { password: 'Alpha#pw77', limitedPassword: 'Limit#pw88', userPassword: 'User#pw99' };
const B = { password: 'Beta#pw77' };
/** Tenant A's resources of each kind, as the set-up makes them. */
const ids = {} as Record<
  | 'alarm'
  | 'alarmRule'
  | 'app'
  | 'appKey'
  | 'camera'
  | 'chain'
  | 'childGroup'
  | 'contact'
  | 'device'
  | 'diagram'
  | 'screen'
  | 'screenShare'
  | 'dict'
  | 'dictItem'
  | 'emptyRole'
  | 'forwardRule'
  | 'forwardServer'
  | 'gateway'
  | 'group'
  | 'job'
  | 'limited'
  | 'mqttAcl'
  | 'mqttConfig'
  | 'mqttUser'
  | 'notifyConfig'
  | 'notifyTemplate'
  | 'product'
  | 'ptBatch'
  | 'ptConfig'
  | 'ptIccid'
  | 'ptReport'
  | 'role'
  | 'template'
  | 'topoElement'
  | 'user',
  string
>;
let recordId = '';
const markers: string[] = [];
const secrets: string[] = [ADMIN_PASSWORD, A.password, A.limitedPassword, A.userPassword, B.password];
const responses: Array<{ route: string; body: string }> = [];
let tokenA: string;
let tokenB: string;
let tokenLimited: string;

const ok = (r: { status: number; body: string }) => {
  expect(r.status, r.body).toBe(200);
  return JSON.parse(r.body).data;
};

/** A's ids for the fields a route asks for, by the route's capability. */
const pickA: IdPicker = (field, url) => {
  const capability = url.split('/')[3] ?? '';
  const byCapability: Record<string, string | undefined> = {
    user: ids.user,
    role: ids.role,
    dept: ids.group,
    app: ids.app,
    appApi: ids.app,
    openApi: ids.app,
    dict: ids.dict,
    menu: undefined,
    tenant: 'alpha',
    register: 'alpha',
    product: ids.product,
    device: ids.device,
    gateway: ids.gateway,
    template: ids.template,
    alarm: ids.alarm,
    notifyTemplate: ids.notifyTemplate,
    notifyConfig: ids.notifyConfig,
    notifyRecord: recordId,
    forwardServer: ids.forwardServer,
    forwardConfig: ids.forwardRule,
    ptConfig: ids.ptConfig,
    ptBatch: ids.ptBatch,
    ptIccid: ids.ptIccid,
    production: ids.ptReport,
    camera: ids.camera,
    diagram: ids.diagram,
    screen: ids.screen,
    topoElement: ids.topoElement,
  };
  // Deeper paths name their capability one level down: /api/iot/alarm/rule, /api/iot/alarm/contact.
  const sub = url.split('/')[4] ?? '';
  const bySub: Record<string, string | undefined> = {
    rule: ids.alarmRule,
    contact: ids.contact,
    ticket: ids.alarm,
    chain: ids.chain,
    dataMap: ids.device,
    ...(capability === 'mqserver' ? { user: ids.mqttUser, acl: ids.mqttAcl } : {}),
  };
  switch (field) {
    case 'id':
      return bySub[sub] ?? byCapability[capability] ?? ids.user;
    case 'ids':
      return bySub[sub] ?? byCapability[capability];
    case 'contactId':
    case 'contactIds':
      return ids.contact;
    case 'alarmId':
      return ids.alarm;
    case 'ruleId':
      return ids.alarmRule;
    case 'groupId':
    case 'parentId':
      // The power routes take a station: A's site.
      if (capability === 'price' || capability === 'statistics') return ids.childGroup;
      return capability === 'menu' ? undefined : ids.group;
    case 'roleId':
    case 'roleIds':
    case 'roleId ':
      return ids.role;
    case 'typeId':
      return ids.dict;
    case 'itemId':
      return ids.dictItem;
    case 'appKey':
      return ids.appKey;
    case 'shareId':
      return ids.screenShare;
    case 'productId':
      return ids.product;
    case 'deviceId':
    case 'deviceIds':
      return ids.device;
    case 'gatewayId':
      return ids.gateway;
    case 'templateId':
      return capability.startsWith('notify') ? ids.notifyTemplate : ids.template;
    case 'jobId':
      return ids.job;
    case 'serverId':
      return ids.forwardServer;
    case 'mqttUserId':
      return ids.mqttUser;
    case 'configId':
      return ids.ptConfig;
    case 'batchId':
      return ids.ptBatch;
    case 'userId':
      return capability === 'ptConfig' ? ids.user : undefined;
    case 'account':
    case 'username':
      // An MQTT user's name is unique on the broker: A's is refused to B as an account's is.
      return capability === 'mqserver' ? 'alphaMqttUserQ' : 'alphaUserQ';
    default:
      return undefined;
  }
};

beforeAll(async () => {
  // Tenant A's SMTP URL names loopback: the operator allows it (issue 24).
  // The broker's hook routes are served (and walked) when a hook secret is set.
  sut = await startTestPlatform({ OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32', MQTT_HOOK_SECRET: 'walk-hook-secret-0123456789' });
  await sut.seedTenant({ id: 'alpha', name: 'alphaTenantQ', adminUsername: 'alphaAdminQ', adminPassword: A.password });
  await sut.seedTenant({ id: 'beta', name: 'betaTenantQ', adminUsername: 'betaAdminQ', adminPassword: B.password });
  tokenA = await sut.login('alphaAdminQ', A.password);
  tokenB = await sut.login('betaAdminQ', B.password);

  // Tenant A's resources, one of each kind.
  ids.group = ok(
    await sut.call('group.create', { token: tokenA, body: { name: 'alphaGroupQ', type: 'office', location: 'alphaPlaceQ' } }),
  ).id;
  ids.childGroup = ok(
    await sut.call('group.create', { token: tokenA, body: { name: 'alphaChildQ', type: 'site', parentId: ids.group } }),
  ).id;
  ids.role = ok(
    await sut.call('role.create', {
      token: tokenA,
      body: { name: 'alphaRoleQ', remark: 'alphaRemarkQ', menuIds: ['system.user', 'system.user.list'] },
    }),
  ).id;
  ids.emptyRole = ok(await sut.call('role.create', { token: tokenA, body: { name: 'alphaNothingQ', menuIds: ['home', 'home.index'] } })).id;
  const user = {
    sex: 'female',
    email: 'alpha.user@example.com',
    phone: '13900000001',
    status: 'enabled',
    position: 'alphaPositionQ',
    groupId: ids.childGroup,
  };
  ids.user = ok(
    await sut.call('user.create', {
      token: tokenA,
      body: { ...user, username: 'alphaUserQ', password: A.userPassword, roleIds: [ids.role] },
    }),
  ).id;
  ids.limited = ok(
    await sut.call('user.create', {
      token: tokenA,
      body: {
        ...user,
        username: 'alphaLimitedQ',
        email: 'alpha.limited@example.com',
        phone: '13900000002',
        password: A.limitedPassword,
        roleIds: [ids.emptyRole],
      },
    }),
  ).id;
  const app = ok(
    await sut.call('app.create', {
      token: tokenA,
      body: { type: 'server', name: 'alphaAppQ', scope: [perm.userList], sharing: 'organisation' },
    }),
  );
  ids.app = app.id;
  ids.appKey = app.appKey;
  secrets.push(app.appSecret);
  ids.dict = ok(await sut.call('dict.create', { token: tokenA, body: { code: 'alphaDictQ', name: 'alphaDictNameQ' } })).id;
  ids.dictItem = ok(
    await sut.call('dict.addItem', {
      token: tokenA,
      body: { typeId: ids.dict, label: 'alphaLabelQ', value: 'alphaValueQ' },
    }),
  ).id;
  ok(await sut.call('settings.update', { token: tokenA, body: { systemName: 'alphaSystemQ' } }));
  const appToken = ok(await sut.call('app.token', { body: { appKey: app.appKey, appSecret: app.appSecret } }));
  tokenLimited = await sut.login('alphaLimitedQ', A.limitedPassword);
  secrets.push(tokenA, tokenB, tokenLimited, appToken.token);

  // Device management: a product, a gateway and a device behind it, a template, an MQTT config, an import.
  ids.product = ok(
    await sut.call('product.create', { token: tokenA, body: { name: 'alphaProductQ', code: 'alphaCodeQ', type: 'gateway' } }),
  ).id;
  ok(
    await sut.call('product.defineFunction', {
      token: tokenA,
      body: {
        productId: ids.product,
        function: { type: 'property', name: 'alphaPropQ', identifier: 'alphaPropQ', dataType: { type: 'int' } },
      },
    }),
  );
  const gateway = ok(
    await sut.call('device.create', {
      token: tokenA,
      body: { sn: 'alphaGatewaySnQ', name: 'alphaGatewayQ', productId: ids.product },
    }),
  );
  ids.gateway = gateway.id;
  secrets.unshift(gateway.secret);
  ids.device = ok(
    await sut.call('device.create', {
      token: tokenA,
      body: { sn: 'alphaSnQ', name: 'alphaDeviceQ', productId: ids.product, groupId: ids.group, gatewayId: ids.gateway },
    }),
  ).id;
  ids.template = ok(
    await sut.call('template.create', {
      token: tokenA,
      body: { name: 'alphaTemplateQ', productId: ids.product, protocol: 'modbus-tcp', acquisitionPeriod: 5 },
    }),
  ).id;
  ids.mqttConfig = ok(
    await sut.call('mqttConfig.create', {
      token: tokenA,
      body: {
        gatewayId: ids.gateway,
        name: 'alphaMqttQ',
        serviceName: 'alphaServiceQ',
        ip: '10.0.0.1',
        port: 1883,
        clientId: 'alphaClientQ',
        password: 'alphaMqttPw#1',
        uplinkTopic: 'up/alpha',
        downlinkTopic: 'down/alpha',
      },
    }),
  ).id;
  secrets.unshift('alphaMqttPw#1');
  // A's own notification channels: their credentials stay beside the log, never in an answer (issue 12).
  ok(
    await sut.call('notify.saveSettings', {
      token: tokenA,
      body: {
        smtpUrl: 'smtp://alpha:alphaSmtpPw%2311@127.0.0.1:2599',
        smsAccessKeyId: 'alphaSmsKeyIdQ',
        smsAccessKeySecret: 'alphaSmsSecret#1',
        wecomWebhook: 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=alphaWecomKeyQ',
        dingtalkWebhook: 'https://oapi.dingtalk.com/robot/send?access_token=alphaDingTokenQ',
        dingtalkSecret: 'alphaDingSecret#1',
      },
    }),
  );
  secrets.unshift('alphaSmtpPw', 'alphaSmsKeyIdQ', 'alphaSmsSecret#1', 'alphaWecomKeyQ', 'alphaDingTokenQ', 'alphaDingSecret#1');
  ids.job = 'alphaJobQ0001';
  ok(
    await sut.call('device.import', {
      token: tokenA,
      query: { jobId: ids.job, filename: 'a.csv' },
      body: Buffer.from('sn,name,product\nalphaImportSnQ,alphaImportQ,alphaCodeQ\n'),
      headers: { 'content-type': 'text/csv' },
    }),
  );
  // Fault alarms: a rule, a manual alarm, a contact, a template, a configuration (and the records it writes).
  ids.alarmRule = ok(
    await sut.call('alarmRule.create', {
      token: tokenA,
      body: {
        name: 'alphaRuleQ',
        productId: ids.product,
        variable: 'alphaPropQ',
        type: 'cloud',
        mode: 'crossUpper',
        threshold: 5,
        level: 3,
      },
    }),
  ).id;
  ids.contact = ok(
    await sut.call('contact.create', {
      token: tokenA,
      body: { name: 'alphaContactQ', email: 'alpha.contact@example.com' },
    }),
  ).id;
  ids.notifyTemplate = ok(
    await sut.call('notifyTemplate.create', {
      token: tokenA,
      body: { code: 'alphaTplCodeQ', name: 'alphaTplQ', type: 'email', content: 'alphaContentQ {{device}}' },
    }),
  ).id;
  await sut.platform.runner.catchUp();
  ids.notifyConfig = ok(
    await sut.call('notifyConfig.create', {
      token: tokenA,
      body: {
        name: 'alphaConfigQ',
        source: 'alarm',
        type: 'email',
        templateId: ids.notifyTemplate,
        sendWays: ['email', 'inApp'],
        contactIds: [ids.contact],
      },
    }),
  ).id;
  ids.alarm = ok(
    await sut.call('alarm.manual', {
      token: tokenA,
      body: {
        rows: [
          {
            deviceId: ids.device,
            variable: 'alphaPropQ',
            type: 'device',
            level: 2,
            trigger: 'manual',
            faultFlag: true,
            cause: 'alphaCauseQ',
          },
        ],
      },
    }),
  ).ids[0];
  ids.forwardServer = ok(
    await sut.call('forwardServer.createHttp', { token: tokenA, body: { name: 'alphaForwardQ', url: 'http://127.0.0.1:9/alphaPathQ' } }),
  ).id;
  ids.forwardRule = ok(
    await sut.call('forwardConfig.create', {
      token: tokenA,
      body: { name: 'alphaForwardRuleQ', productIds: [ids.product], messageTypes: ['telemetry'], serverId: ids.forwardServer },
    }),
  ).id;
  ids.mqttUser = ok(
    await sut.call('mqttUser.create', {
      token: tokenA,
      body: { username: 'alphaMqttUserQ', password: 'Mqtt#pw1', remark: 'alphaMqttRemarkQ' },
    }),
  ).id;
  ids.mqttAcl = ok(
    await sut.call('mqttAcl.create', { token: tokenA, body: { mqttUserId: ids.mqttUser, topic: 'alphaTopicQ/#', access: 'both' } }),
  ).id;
  // Video surveillance: a camera of A's group (issue 21).
  ids.camera = ok(
    await sut.call('camera.create', {
      token: tokenA,
      body: { name: 'alphaCameraQ', streamUrl: 'https://cams.example.com/alphaStreamQ.m3u8', groupId: ids.group, location: 'alphaSpotQ' },
    }),
  ).id;
  markers.push('alphaCameraQ', 'alphaStreamQ', 'alphaSpotQ');
  // Operation center: a configuration diagram of A's, bound to A's device (issue 20).
  ids.diagram = ok(
    await sut.call('diagram.create', {
      token: tokenA,
      body: {
        name: 'alphaDiagramQ',
        widgets: [{ id: 'w1', kind: 'value', x: 0, y: 0, label: 'alphaWidgetQ', deviceId: ids.device, property: 'alphaPropQ' }],
      },
    }),
  ).id;
  markers.push('alphaDiagramQ', 'alphaWidgetQ');
  // Operation center: a big screen of A's, bound to A's device, shared by a link (issue 20).
  ids.screen = ok(
    await sut.call('screen.create', {
      token: tokenA,
      body: {
        name: 'alphaScreenQ',
        widgets: [
          {
            id: 'w1',
            kind: 'number',
            x: 0,
            y: 0,
            w: 4,
            h: 3,
            title: 'alphaScreenWidgetQ',
            binding: { source: 'device', deviceId: ids.device, variable: 'temperature' },
          },
        ],
      },
    }),
  ).id;
  ids.screenShare = ok(await sut.call('screen.share', { token: tokenA, body: { id: ids.screen, hours: 24 } })).id;
  markers.push('alphaScreenQ', 'alphaScreenWidgetQ');
  ids.topoElement = ok(
    await sut.call('topoElement.create', {
      token: tokenA,
      body: { name: 'alphaElementQ', width: 80, height: 60, remark: 'alphaElementRemarkQ' },
    }),
  ).id;
  markers.push('alphaElementQ', 'alphaElementRemarkQ');
  // The power area: a price schedule of A's site (issue 20).
  const prices = { sharp: null, peak: null, flat: 0.6, valley: null };
  ok(
    await sut.call('power.priceAdd', {
      token: tokenA,
      body: { groupId: ids.childGroup, currency: 'alphaQ', prices, periods: [{ kind: 'flat', start: '00:00', end: '24:00' }] },
    }),
  );
  markers.push('alphaQ');
  markers.push('alphaForwardQ', 'alphaPathQ', 'alphaForwardRuleQ', 'alphaMqttUserQ', 'alphaMqttRemarkQ', 'alphaTopicQ');
  secrets.unshift('Mqtt#pw1');
  // Rule engine: a chain of A's (issue 19).
  ids.chain = ok(
    await sut.call('ruleChain.create', {
      token: tokenA,
      body: {
        chain: {
          name: 'alphaChainQ',
          firstNodeId: 'n1',
          nodes: [{ id: 'n1', name: 'alphaNodeQ', kind: 'filter', config: { expression: 'msg.alphaPropQ > 1.0' } }],
        },
      },
    }),
  ).id;
  // Product test (issue 21): a batch, a configuration with a login, an ICCID, a device tested and reported.
  ids.ptBatch = ok(await sut.call('ptBatch.create', { token: tokenA, body: { batchNo: 'alphaBatchQ', productId: ids.product } })).id;
  ids.ptConfig = ok(
    await sut.call('ptConfig.create', {
      token: tokenA,
      body: { alias: 'alphaPtConfigQ', productId: ids.product, batchId: ids.ptBatch, username: 'alphaPtUserQ', password: 'alphaPt#pw1' },
    }),
  ).id;
  ids.ptIccid = ok(
    await sut.call('ptIccid.create', { token: tokenA, body: { iccid: '89860000000000000777', remark: 'alphaIccidRemarkQ' } }),
  ).id;
  ok(await sut.call('production.test', { token: tokenA, body: { configId: ids.ptConfig, deviceId: ids.device } }));
  ok(await sut.call('production.report', { token: tokenA, body: { configId: ids.ptConfig, deviceId: ids.device } }));
  await sut.platform.runner.catchUp();
  ids.ptReport = ok(await sut.call('ptReport.list', { token: tokenA })).rows[0]!.id;
  markers.push('alphaBatchQ', 'alphaPtConfigQ', 'alphaPtUserQ', 'alphaIccidRemarkQ');
  secrets.unshift('alphaPt#pw1');
  await sut.platform.runner.catchUp();
  await sut.platform.delivery!.drain();
  // A record's id is a small number: kept out of the markers, which would find it in any answer.
  recordId = String((await sut.db.pool.query('select id from notify_records where tenant_id = $1 limit 1', ['alpha'])).rows[0]!.id);
  markers.push(
    'alphaRuleQ',
    'alphaContactQ',
    'alpha.contact@example.com',
    'alphaTplCodeQ',
    'alphaTplQ',
    'alphaContentQ',
    'alphaConfigQ',
    'alphaCauseQ',
    'alphaChainQ',
    'alphaNodeQ',
  );
  markers.push('alphaProductQ', 'alphaCodeQ', 'alphaPropQ', 'alphaGatewaySnQ', 'alphaGatewayQ', 'alphaSnQ', 'alphaDeviceQ');
  markers.push('alphaTemplateQ', 'alphaMqttQ', 'alphaServiceQ', 'alphaClientQ', 'alphaImportSnQ', 'alphaImportQ');

  const roles = ok(await sut.call('role.list', { token: tokenA, query: { pageSize: '100' } }));
  markers.push(tenantAdminId('alpha'), ...Object.values(ids), ...roles.rows.map((r: { id: string }) => r.id));
  markers.push(
    'alphaTenantQ',
    'alphaAdminQ',
    'alphaGroupQ',
    'alphaChildQ',
    'alphaPlaceQ',
    'alphaRoleQ',
    'alphaRemarkQ',
    'alphaNothingQ',
    'alphaUserQ',
    'alphaLimitedQ',
  );
  markers.push(
    'alpha.user@example.com',
    'alphaPositionQ',
    'alphaAppQ',
    'alphaDictQ',
    'alphaDictNameQ',
    'alphaLabelQ',
    'alphaValueQ',
    'alphaSystemQ',
  );

  await sut.app.ready();
  routes = routesOf(sut.app.swagger() as never);
});
afterAll(async () => sut?.stop());

/** Logout ends the walker's own session: it has its own test. */
const walked = () => routes.filter((r) => !r.url.endsWith('/logout'));

async function walk(token: string, check: (route: Route, usedA: boolean, r: { status: number; body: string }) => void) {
  for (const route of walked()) {
    const { query, body } = requestOf(route, pickA);
    // A read filtered by A's id may answer B's own (empty) rows; a change or a read of one record by A's id may not succeed.
    const request = JSON.stringify([query, body]);
    const usedA = (route.method !== 'GET' || 'id' in query) && markers.some((m) => request.includes(m));
    // Spec §7's development-build `tenant` header names A: the tenant comes from the token all the same.
    const r = await sut.call(route.method, route.url, { token, query, body, headers: { tenant: 'alpha', tenantid: 'alpha' } });
    responses.push({ route: `${route.method} ${route.url}`, body: r.body });
    check(route, usedA, r);
  }
}

describe('security', () => {
  it('walks every route of the table, and only routes whose permission the table declares', () => {
    const name = (r: { method: string; url: string }) => `${r.method} ${r.url}`;
    expect(routes.filter((r) => !declaredPermission(r)).map(name)).toEqual([]);
    const served = new Set(routes.map(name));
    expect(
      Object.values(routeTable)
        .map((spec) => `${spec.method} ${spec.path}`)
        .filter((route) => !served.has(route)),
    ).toEqual([]);
    expect(walked().length).toBeGreaterThan(40);
  });

  it('isolates tenants: a user of tenant B gets nothing of tenant A on any route', async () => {
    const failures: string[] = [];
    await walk(tokenB, (route, usedA, r) => {
      const name = `${route.method} ${route.url} -> ${r.status}`;
      if (r.status >= 500) failures.push(`${name}: server error ${r.body.slice(0, 200)}`);
      if (usedA && ![400, 401, 403, 404, 429].includes(r.status))
        failures.push(`${name}: acted on tenant A's resource: ${r.body.slice(0, 200)}`);
      const leaked = markers.filter((m) => r.body.includes(m));
      if (leaked.length) failures.push(`${name}: leaked ${leaked.join(', ')}`);
    });
    expect(failures).toEqual([]);
    // Tenant A's resources are untouched.
    const users = ok(await sut.call('user.list', { token: tokenA, query: { pageSize: '100' } }));
    expect(users.rows.map((u: { username: string }) => u.username).sort()).toEqual(['alphaAdminQ', 'alphaLimitedQ', 'alphaUserQ']);
    expect(ok(await sut.call('user.detail', { token: tokenA, query: { id: ids.user! } })).status).toBe('enabled');
    expect(ok(await sut.call('group.list', { token: tokenA })).total).toBe(2);
    expect(ok(await sut.call('app.list', { token: tokenA })).total).toBe(1);
    expect(ok(await sut.call('dict.items', { token: tokenA, query: { typeId: ids.dict! } })).total).toBe(1);
  });

  it('checks permissions: a user whose role lacks a route permission gets 403 on every non-public route', async () => {
    const failures: string[] = [];
    await walk(tokenLimited, (route, _usedA, r) => {
      const permission = declaredPermission(route);
      if (!permission) failures.push(`${route.method} ${route.url} declares no permission`);
      // The broker's hooks take no user's token: without their secret, 401.
      else if (
        permission === 'brokerSecret' ? r.status !== 401 : permission !== 'public' && permission !== 'authenticated' && r.status !== 403
      )
        failures.push(`${route.method} ${route.url} (${permission}) -> ${r.status}`);
    });
    expect(failures).toEqual([]);
  });

  it('grants routes through menus: every route permission is a built-in interface or button entry', async () => {
    const menus = await sut.platform.context.db.query<{ permission: string; type: string }>(
      `select permission, type from rm_menus where type in ('interface', 'button')`,
    );
    const granted = new Set(menus.rows.map((m) => m.permission));
    const missing = routes
      .map(declaredPermission)
      .filter((p) => !!p && p !== 'public' && p !== 'brokerSecret' && p !== 'authenticated' && !granted.has(p));
    expect([...new Set(missing)]).toEqual([]);
  });

  it('an app token carries exactly its scope', async () => {
    const appToken = secrets.at(-1)!;
    expect((await sut.call('user.list', { token: appToken })).status).toBe(200);
    expect((await sut.call('role.list', { token: appToken })).status).toBe(403);
    expect((await sut.call('user.create', { token: appToken, body: malformed({}) })).status).toBe(403);
  });

  it("answers every read of a tenant's own data without a server error (answers with rows serialise)", async () => {
    const failures: string[] = [];
    for (const route of walked().filter((r) => r.method === 'GET')) {
      const { query } = requestOf(route, pickA);
      const r = await sut.call(route.method, route.url, { token: tokenA, query });
      responses.push({ route: `${route.method} ${route.url}`, body: r.body });
      if (r.status >= 500) failures.push(`${route.method} ${route.url} -> ${r.status}: ${r.body.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
    // The lists that hold A's rows did answer them.
    const configs = ok(await sut.call('mqttConfig.list', { token: tokenA }));
    expect(configs.rows[0]).toMatchObject({ name: 'alphaMqttQ', hasPassword: true });
    expect(configs.rows[0]).not.toHaveProperty('password');
  });

  it('never shows a password, secret or token in an answer, a log line or an event', async () => {
    const leaks = (text: string) =>
      secrets
        .filter((s) => text.includes(s))
        .map((s) => `${s.slice(0, 3)}…`)
        .concat(text.includes('$argon2') ? ['argon2 hash'] : []);
    for (const r of responses) expect(leaks(r.body), r.route).toEqual([]);
    const logs = sut.logLines.join('');
    expect(logs.length).toBeGreaterThan(0);
    expect(leaks(logs)).toEqual([]);
    const store = sut.platform.context.store;
    let after: string | null = null;
    let count = 0;
    for (;;) {
      const batch = await store.readAll({ after, limit: 1000 });
      if (batch.length === 0) break;
      count += batch.length;
      expect(leaks(JSON.stringify(batch))).toEqual([]);
      after = batch.at(-1)!.position;
    }
    expect(count).toBeGreaterThan(100);
  });
});
