import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { channels } from '@iot/contracts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/** Opens a channel with a token; resolves once open, or with the HTTP status that refused it. */
function listen(url: string, token: string | null) {
  const messages: Array<{ eventType: string; stream: string }> = [];
  const socket = new WebSocket(url, { headers: token ? { authentication: token } : {} });
  socket.on('message', (data) => messages.push(JSON.parse(String(data))));
  const opened = new Promise<number>((resolve) => {
    socket.once('open', () => resolve(101));
    socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    socket.once('error', () => resolve(0));
  });
  return { socket, messages, opened };
}

describe('websocket channels of the route table', () => {
  let sut: TestPlatform;
  let url: string;
  let alpha: string;
  let beta: string;

  beforeAll(async () => {
    sut = await startTestPlatform();
    await sut.seedTenant({ id: 'wsalpha', name: 'wsAlpha', adminUsername: 'wsAlpha', adminPassword: 'Alpha#pw1' });
    await sut.seedTenant({ id: 'wsbeta', name: 'wsBeta', adminUsername: 'wsBeta', adminPassword: 'Beta#pw1' });
    alpha = await sut.login('wsAlpha', 'Alpha#pw1');
    beta = await sut.login('wsBeta', 'Beta#pw1');
    url = `${sut.platform.url!.replace('http', 'ws')}${channels['activity.live'].path}`;
  });
  afterAll(async () => sut?.stop());

  it("delivers a tenant's changes to its own listeners and nothing to another tenant's", async () => {
    const a = listen(url, alpha);
    const b = listen(url, beta);
    expect(await a.opened).toBe(101);
    expect(await b.opened).toBe(101);
    const created = await sut.api('role.create', { token: alpha, body: { name: 'live role', remark: null, menuIds: [] } });
    expect(created.status).toBe(200);
    await expect.poll(() => a.messages.some((m) => m.eventType === 'RoleCreated'), { timeout: 5_000 }).toBe(true);
    // B's own change comes after A's in the log: by the time B hears of it, a leak of A's would have come.
    expect((await sut.api('role.create', { token: beta, body: { name: 'beta role', remark: null, menuIds: [] } })).status).toBe(200);
    await expect.poll(() => b.messages.some((m) => m.eventType === 'RoleCreated'), { timeout: 5_000 }).toBe(true);
    expect(b.messages.filter((m) => !m.stream.includes('-wsbeta.'))).toEqual([]);
    expect(a.messages.filter((m) => !m.stream.includes('-wsalpha.'))).toEqual([]);
    a.socket.close();
    b.socket.close();
  });

  it('refuses a listener without a session (401) or without the permission (403)', async () => {
    expect(await listen(url, null).opened).toBe(401);
    const app = await sut.api('app.create', {
      token: alpha,
      body: { type: 'server', name: 'ws probe', scope: ['system:user:list'], sharing: 'private', remark: null },
    });
    // An app holding only another permission cannot listen: checked the same way as a route.
    expect(app.status).toBe(200);
    {
      const tokenResponse = await sut.api('app.token', {
        body: { appKey: app.body.data.appKey, appSecret: app.body.data.appSecret },
      });
      expect(tokenResponse.status).toBe(200);
      expect(await listen(url, tokenResponse.body.data.token).opened).toBe(403);
      // Every channel of the route table, walked the same way: no session 401, the one other permission 403.
      for (const [name, spec] of Object.entries(channels)) {
        const path = `${sut.platform.url!.replace('http', 'ws')}${spec.path}`;
        expect([name, await listen(path, null).opened]).toEqual([name, 401]);
        expect([name, await listen(path, tokenResponse.body.data.token).opened]).toEqual([name, 403]);
      }
    }
  });
});
