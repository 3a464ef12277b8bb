import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_POSITION_HEADER, READ_YOUR_WRITES_TIMEOUT_MS } from '@iot/infra/http/route-table.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * A write waits only for the read models its route declares: one broken projection (here the
 * dictionaries', whose table refuses rows) delays only the routes that read it.
 */
describe('read your writes, per route', () => {
  let sut: TestPlatform;
  let token: string;
  beforeAll(async () => {
    sut = await startTestPlatform();
    await sut.seedTenant({ id: 'ryw', name: 'rywCo', adminUsername: 'rywCo', adminPassword: 'Ryw#pw123' });
    token = await sut.login('rywCo', 'Ryw#pw123');
  });
  afterAll(async () => sut?.stop());

  it('answers writes that do not read a broken projection at once, and the others with their position', async () => {
    // Given the dictionaries' projection broken: its table refuses every new row
    await sut.db.pool.query(`create function rm_dict_types_broken() returns trigger language plpgsql as $$
      begin raise exception 'broken on purpose'; end $$;
      create trigger rm_dict_types_broken before insert on rm_dict_types for each row execute function rm_dict_types_broken()`);
    try {
      // When a role is created, its answer and its list do not wait for the dictionaries
      const t0 = performance.now();
      const role = await sut.call('role.create', { token, body: { name: 'unaffected', remark: null, menuIds: [] } });
      expect(role.status).toBe(200);
      expect(performance.now() - t0).toBeLessThan(READ_YOUR_WRITES_TIMEOUT_MS / 2);
      const roles = await sut.api('role.list', { query: { page: 1, pageSize: 50 }, token });
      expect(roles.body.data.rows.map((r: { name: string }) => r.name)).toContain('unaffected');

      // ... while a dictionary, whose route reads the broken model, still succeeds past the timeout, telling its position
      const t1 = performance.now();
      const dict = await sut.call('dict.create', {
        token,
        body: { name: 'Pending dictionary', code: 'pending_dict', remark: null },
      });
      expect(dict.json).toMatchObject({ code: 200 });
      expect(performance.now() - t1).toBeGreaterThanOrEqual(READ_YOUR_WRITES_TIMEOUT_MS - 50);
      expect(dict.json!.code).toBe(200);
      expect(dict.json!.data.position).toMatch(/^\d+:\d+$/);
      expect(dict.headers[READ_POSITION_HEADER]).toBe(dict.json!.data.position);

      // Then, once the projection is mended, a read carrying that position waits for it and sees the write
      await sut.db.pool.query('drop trigger rm_dict_types_broken on rm_dict_types');
      // (the runner tries a failed projection again a few seconds later)
      const read = () =>
        sut.api('dict.list', { query: { page: 1, pageSize: 50 }, token, headers: { [READ_POSITION_HEADER]: dict.json!.data.position } });
      await expect
        .poll(async () => (await read()).body.data.rows.map((r: { code: string }) => r.code), { timeout: 20_000, interval: 100 })
        .toContain('pending_dict');
    } finally {
      await sut.db.pool.query('drop trigger if exists rm_dict_types_broken on rm_dict_types');
    }
  });

  it("serves a cached list only while its read models stand still: a write, anyone's, shows at once", async () => {
    const list = async () =>
      (await sut.api('role.list', { query: { page: 1, pageSize: 100 }, token })).body.data.rows.map((r: { name: string }) => r.name);
    const before = await list();
    expect(await list()).toEqual(before);
    const created = await sut.api('role.create', { token, body: { name: 'after the cache', remark: null, menuIds: [] } });
    expect(created.status).toBe(200);
    expect(await list()).toContain('after the cache');
    // A change that did not come through this route (another process, a workflow) moves the read model too.
    await sut.api('role.update', { token, body: { id: created.body.data.id, name: 'renamed elsewhere', remark: null } });
    expect(await list()).toContain('renamed elsewhere');
    expect(await list()).not.toContain('after the cache');
  });
});
