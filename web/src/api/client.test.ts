// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TFunction } from 'i18next';
import type { GroupNode } from '@iot/contracts/identity/group.ts';
import { checkBody } from '../ui/form.tsx';
import { callRoute, DEV_TENANT_KEY, fileUrl, readList, setUnauthorizedHandler, STATION_KEY } from './client.ts';
import { session } from './session.ts';

/** The browser's own fetch, replaced: what the typed client sends is what is checked here. */
function recordFetch() {
  const sent: Array<{ url: string; method: string; body: unknown; headers: Record<string, string> }> = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      sent.push({
        url,
        method: String(init.method),
        body: init.body ? JSON.parse(String(init.body)) : undefined,
        headers: init.headers as Record<string, string>,
      });
      return new Response(JSON.stringify({ code: 200, msg: 'ok', data: { id: 'u1' } }), { status: 200 });
    }),
  );
  return sent;
}

describe('the client typed by the route table', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('deletes a user with the `id` the route reads, not the `ids` the old screen sent', async () => {
    const sent = recordFetch();
    expect(await callRoute('user.delete', { query: { id: 'u1' } })).toEqual({ id: 'u1' });
    expect(sent[0]!.method).toBe('DELETE');
    expect(sent[0]!.url).toMatch(/^\/api\/auth\/user\?id=u1&timestamp=\d+$/);
  });

  it('sends the `tenant` header of a development build (spec §7) only once one is set', async () => {
    const sent = recordFetch();
    await callRoute('user.delete', { query: { id: 'u1' } });
    expect(sent[0]!.headers.tenant).toBeUndefined();
    localStorage.setItem(DEV_TENANT_KEY, 'demo');
    await callRoute('user.delete', { query: { id: 'u1' } });
    // Vitest runs the client as a development build (import.meta.env.DEV); the production bundle drops the branch.
    expect(sent[1]!.headers.tenant).toBe('demo');
    localStorage.removeItem(DEV_TENANT_KEY);
  });

  it('sends the current group as `stationid` on every call once one is chosen, and none after logout', async () => {
    const sent = recordFetch();
    await callRoute('user.delete', { query: { id: 'u1' } });
    expect(sent[0]!.headers.stationid).toBeUndefined();
    localStorage.setItem(STATION_KEY, 'g-east');
    await callRoute('user.delete', { query: { id: 'u1' } });
    expect(sent[1]!.headers.stationid).toBe('g-east');
    session.clear();
    await callRoute('user.delete', { query: { id: 'u1' } });
    expect(sent[2]!.headers.stationid).toBeUndefined();
  });

  it('does not compile a field or a route the table does not declare (the web build runs tsc)', () => {
    const neverCalled = () => [
      // @ts-expect-error `ids` is no field of user.delete's query
      callRoute('user.delete', { query: { ids: 'u1' } }),
      // @ts-expect-error no such route
      callRoute('user.remove', {}),
    ];
    expect(typeof neverCalled).toBe('function');
  });

  it('reads a list, checks a form and names a file only by routes that fit (the web build runs tsc)', () => {
    const t = ((key: string) => key) as TFunction;
    const neverCalled = () => {
      const checked = checkBody(Math.random() > 0.5 ? 'group.create' : 'group.update', {}, t);
      // The route names which body the data is: an update's carries the group's id, a create's has none.
      if (checked.ok && checked.route === 'group.update') void checked.data.id.trim();
      // @ts-expect-error a create's body has no id
      if (checked.ok && checked.route === 'group.create') void checked.data.id;
      return [
        readList<GroupNode>('group.tree', {}),
        // @ts-expect-error user.list answers users, not groups
        readList<GroupNode>('user.list', {}),
        fileUrl('device.importReport', { jobId: 'job12345' }),
        // @ts-expect-error `id` is no field of the import report's query
        fileUrl('device.importReport', { id: 'x' }),
        // @ts-expect-error user.list answers JSON, not a file
        fileUrl('user.list', {}),
        // @ts-expect-error user.list takes no body
        checkBody('user.list', {}, t),
      ];
    };
    expect(typeof neverCalled).toBe('function');
  });

  it('builds the address of a file route from the table, with the cache-busting timestamp', () => {
    expect(fileUrl('device.importReport', { jobId: 'job12345' })).toMatch(
      /^\/api\/iot\/device\/import\/report\?jobId=job12345&timestamp=\d+$/,
    );
  });

  it("takes method and path from the table and sends the body as the route's schema has it", async () => {
    const sent = recordFetch();
    await callRoute('user.status', { body: { id: 'u1', status: 'stopped' } });
    expect(sent[0]).toMatchObject({ url: '/api/auth/user/status', method: 'PUT', body: { id: 'u1', status: 'stopped' } });
  });
});

describe('what a refused call does', () => {
  afterEach(() => vi.unstubAllGlobals());
  const answer = (status: number, error: string, msg: string) =>
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(JSON.stringify({ code: status, msg, data: { error } }), { status })),
    );

  it('keeps the user on the screen on a 403 (a forbidden action), with the message to show', async () => {
    const toLogin = vi.fn();
    setUnauthorizedHandler(toLogin);
    answer(403, 'FORBIDDEN', '没有权限');
    await expect(callRoute('notifyRecord.read', { body: {} })).rejects.toMatchObject({ status: 403, message: '没有权限' });
    expect(toLogin).not.toHaveBeenCalled();
  });

  it('sends the user to login on a 401 (the session expired or was revoked)', async () => {
    const toLogin = vi.fn();
    setUnauthorizedHandler(toLogin);
    answer(401, 'UNAUTHENTICATED', '请先登录');
    await expect(callRoute('notifyRecord.read', { body: {} })).rejects.toMatchObject({ status: 401 });
    expect(toLogin).toHaveBeenCalledTimes(1);
  });
});
