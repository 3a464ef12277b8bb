import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { uniquePhone } from '../harness/phone.ts';
import { holdKey, holdTable, together } from '../harness/barrier.ts';
import { malformed, type BodyOf } from '../harness/api.ts';
import { waitFor } from '../harness/process.ts';
import { claimExistingPhones } from '@iot/command/user/usernames.ts';
import { createLookups } from '@iot/infra/read-models/lookups.ts';

/**
 * Uniqueness that spans streams is a claim taken before the append (ARCHITECTURE.md "Event store"):
 * of requests for one role name or dictionary code held until each has passed its checks, exactly one wins.
 */
let sut: TestPlatform;
let admin: string;

const data = (r: { status: number; body: string }) => {
  expect(r.status, r.body).toBe(200);
  return JSON.parse(r.body).data;
};
/** The outcome of each answer: 200, or the error code of a refusal. */
const outcomes = (answers: Array<{ status: number; json: { data: any } | null }>) =>
  answers.map((r) => (r.status === 200 ? 200 : String(r.json?.data?.error))).sort((a, b) => String(a).localeCompare(String(b)));
const times = <T>(n: number, value: T): T[] => Array.from({ length: n }, () => value);

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'kappa', name: 'kappaCo', adminUsername: 'kappaAdmin', adminPassword: 'Kappa#pw1' });
  admin = await sut.login('kappaAdmin', 'Kappa#pw1');
});
afterAll(async () => sut?.stop());

describe('claims', () => {
  it('refuses a role name asked for while the role holding it is being appended', async () => {
    const create = (name: string) => sut.call('role.create', { token: admin, body: { name, menuIds: [] } });
    // Given a role that has claimed its name and is held in its append (nothing of it committed yet),
    const gate = await holdTable(sut.db.pool, 'es_events');
    const first = create('Holders');
    await waitFor('the name claimed', async () => (await sut.db.pool.query(`select 1 from claims where key = 'holders'`)).rowCount === 1);
    await gate.queued(1);
    // when another role asks for it in another spelling, it is told at once that the role exists,
    expect((await create('HOLDERS')).json!.data.error).toBe('ROLE_EXISTS');
    // and the first is created once its append goes through.
    await gate.release();
    data(await first);
  });

  it('lets one of 3 creates of a role name that claim it at the same moment win; the others are told "Role already exists"', async () => {
    // Every create has passed its checks and is held at the claim; then they claim together.
    const answers = await together(
      holdTable(sut.db.pool, 'claims'),
      ['Racers', 'RACERS', 'racers'].map((name) => () => sut.call('role.create', { token: admin, body: { name, menuIds: [] } })),
    );
    expect(outcomes(answers)).toEqual([200, ...times(2, 'ROLE_EXISTS')]);
    await sut.platform.runner.catchUp();
    const rows = await sut.db.pool.query(`select id from rm_roles where tenant_id = 'kappa' and lower(name) = 'racers'`);
    expect(rows.rowCount).toBe(1);
  });

  it('lets one of 3 creates of a dictionary code that claim it at the same moment win', async () => {
    const answers = await together(
      holdTable(sut.db.pool, 'claims'),
      times(3, () => sut.call('dict.create', { token: admin, body: { code: 'raceCode', name: 'Race' } })),
    );
    expect(outcomes(answers)).toEqual([200, ...times(2, 'DICT_CODE_TAKEN')]);
    await sut.platform.runner.catchUp();
    const rows = await sut.db.pool.query(`select id from rm_dict_types where tenant_id = 'kappa' and code = 'raceCode'`);
    expect(rows.rowCount).toBe(1);
  });

  it('lets one of 3 creates of an app name that claim it at the same moment win; a rename onto it is refused, a deleted app frees it', async () => {
    const app = (name: string): BodyOf<'app.create'> => ({ type: 'server', name, scope: [], sharing: 'private', remark: null });
    const answers = await together(
      holdTable(sut.db.pool, 'claims'),
      ['Reporter', 'REPORTER', 'reporter'].map((name) => () => sut.call('app.create', { token: admin, body: app(name) })),
    );
    expect(outcomes(answers)).toEqual([200, ...times(2, 'APP_NAME_TAKEN')]);
    await sut.platform.runner.catchUp();
    const rows = await sut.db.pool.query(`select id from rm_apps where tenant_id = 'kappa' and lower(name) = 'reporter'`);
    expect(rows.rowCount).toBe(1);
    const winner = answers.find((r) => r.status === 200)!.json!.data.id as string;
    const other = data(await sut.call('app.create', { token: admin, body: app('Exporter') })).id as string;
    const renamed = await sut.call('app.update', { token: admin, body: { id: other, ...app('reporter'), status: 'enabled' } });
    expect(renamed.json!.data.error).toBe('APP_NAME_TAKEN');
    data(await sut.call('app.delete', { token: admin, query: { id: winner } }));
    data(await sut.call('app.update', { token: admin, body: { id: other, ...app('Reporter'), status: 'enabled' } }));
    // The name it left is free again.
    data(await sut.call('app.create', { token: admin, body: app('Exporter') }));
  });

  it('lets one of 4 users with one email that claim it at the same moment have it, platform-wide; an edit onto it is refused, a change frees the old one', async () => {
    await sut.seedTenant({ id: 'lambda', name: 'lambdaCo', adminUsername: 'lambdaAdmin', adminPassword: 'Lambda#pw1' });
    const other = await sut.login('lambdaAdmin', 'Lambda#pw1');
    const role = data(await sut.call('role.list', { token: admin, query: { pageSize: '50' } })).rows[0].id as string;
    const otherRole = data(await sut.call('role.list', { token: other, query: { pageSize: '50' } })).rows[0].id as string;
    const user = (username: string, email: string, roleId = role): BodyOf<'user.create'> => ({
      username,
      email,
      sex: 'male',
      phone: uniquePhone(),
      status: 'enabled',
      password: 'Mail#pw123',
      roleIds: [roleId],
    });
    // Every create, from two tenants, has claimed its username and is held at the email's key; then they claim it together.
    const answers = await together(
      holdKey(sut.db.pool, 'username_claims', { username: 'shared@example.com', owner: 'barrier' }),
      Array.from(
        { length: 4 },
        (_, i) => () =>
          i % 2
            ? sut.call('user.create', { token: admin, body: user(`mailer${i}`, 'Shared@Example.com') })
            : sut.call('user.create', { token: other, body: user(`mailer${i}`, 'shared@example.com', otherRole) }),
      ),
    );
    expect(outcomes(answers)).toEqual([200, ...times(3, 'EMAIL_TAKEN')]);
    await sut.platform.runner.catchUp();
    expect((await sut.db.pool.query(`select 1 from rm_users where lower(email) = 'shared@example.com'`)).rowCount).toBe(1);
    // Every loser's username was given back with its email.
    const losers = answers.flatMap((r, i) => (r.status === 200 ? [] : [`mailer${i}`]));
    const claimed = await sut.db.pool.query('select 1 from username_claims where username = any($1)', [losers.map((l) => l.toLowerCase())]);
    expect(claimed.rowCount).toBe(0);

    const mine = data(await sut.call('user.create', { token: admin, body: user('mailOwner', 'owner@example.com') })).id as string;
    const edit = (email: string) => {
      const { password: _password, ...fields } = user('mailOwner', email);
      return sut.call('user.update', { token: admin, body: { id: mine, ...fields } });
    };
    expect((await edit('SHARED@example.com')).json!.data.error).toBe('EMAIL_TAKEN');
    // Refused, the user keeps its own email: nobody else can take it.
    expect(
      (await sut.call('user.create', { token: other, body: user('mailThief', 'owner@example.com', otherRole) })).json!.data.error,
    ).toBe('EMAIL_TAKEN');
    data(await edit('new-owner@example.com'));
    data(await sut.call('user.create', { token: other, body: user('mailHeir', 'owner@example.com', otherRole) }));
  });

  it('lets one of 4 users with one phone that claim it at the same moment have it, platform-wide; an edit onto it is refused, a change frees the old one', async () => {
    await sut.seedTenant({ id: 'mu', name: 'muCo', adminUsername: 'muAdmin', adminPassword: 'Mu#pw1234' });
    const other = await sut.login('muAdmin', 'Mu#pw1234');
    const role = data(await sut.call('role.list', { token: admin, query: { pageSize: '50' } })).rows[0].id as string;
    const otherRole = data(await sut.call('role.list', { token: other, query: { pageSize: '50' } })).rows[0].id as string;
    const user = (username: string, phone: string, roleId = role): BodyOf<'user.create'> => ({
      username,
      email: `${username.toLowerCase()}@phones.test`,
      sex: 'female',
      phone,
      status: 'enabled',
      password: 'Phone#pw12',
      roleIds: [roleId],
    });
    // Three spellings of one number, across two tenants.
    const spellings = ['13712345678', '+8613712345678', '8613712345678'];
    // Every create, from two tenants, has claimed its username and email and is held at the phone's claim.
    const answers = await together(
      holdTable(sut.db.pool, 'claims'),
      Array.from(
        { length: 4 },
        (_, i) => () =>
          i % 2
            ? sut.call('user.create', { token: admin, body: user(`caller${i}`, spellings[i % 3]!) })
            : sut.call('user.create', { token: other, body: user(`caller${i}`, spellings[i % 3]!, otherRole) }),
      ),
    );
    expect(outcomes(answers)).toEqual([200, ...times(3, 'PHONE_TAKEN')]);
    await sut.platform.runner.catchUp();
    expect((await sut.db.pool.query(`select 1 from rm_users where right(phone, 11) = '13712345678'`)).rowCount).toBe(1);
    // Every loser's username and email went back with its phone.
    const losers = answers.flatMap((r, i) => (r.status === 200 ? [] : [`caller${i}`]));
    const names = losers.flatMap((l) => [l.toLowerCase(), `${l.toLowerCase()}@phones.test`]);
    expect((await sut.db.pool.query('select 1 from username_claims where username = any($1)', [names])).rowCount).toBe(0);
    expect((await sut.db.pool.query(`select 1 from claims where scope = 'user.phone' and key = '13712345678'`)).rowCount).toBe(1);

    const mine = data(await sut.call('user.create', { token: admin, body: user('phoneOwner', '13755550000') })).id as string;
    const edit = (phone: string) => {
      const { password: _password, ...fields } = user('phoneOwner', phone);
      return sut.call('user.update', { token: admin, body: { id: mine, ...fields } });
    };
    expect((await edit('+8613712345678')).json!.data.error).toBe('PHONE_TAKEN');
    // Refused, the user keeps its own phone: nobody else can take it, in any spelling.
    const thief = await sut.call('user.create', { token: other, body: user('phoneThief', '8613755550000', otherRole) });
    expect(thief.json!.data.error).toBe('PHONE_TAKEN');
    // The profile route claims too.
    const owner = await sut.login('phoneOwner', 'Phone#pw12');
    const profile = await sut.call('user.updateProfile', {
      token: owner,
      body: { sex: 'female', email: 'phoneowner@phones.test', phone: '13712345678' },
    });
    expect(profile.json!.data.error).toBe('PHONE_TAKEN');
    data(await edit('13755550001'));
    data(await sut.call('user.create', { token: other, body: user('phoneHeir', '13755550000', otherRole) }));
    // A deleted user's phone is free again.
    data(await sut.call('user.delete', { token: admin, query: { id: mine } }));
    data(await sut.call('user.create', { token: other, body: user('phoneHeir2', '13755550001', otherRole) }));
  });

  it('claims at start the phones of users made before phones were claimed: the earliest user keeps a duplicate', async () => {
    const role = data(await sut.call('role.list', { token: admin, query: { pageSize: '50' } })).rows[0].id as string;
    const create = (username: string, phone: string) =>
      sut.call('user.create', {
        token: admin,
        body: { username, email: `${username}@old.test`, sex: 'male', phone, status: 'enabled', password: 'Old#pw1234', roleIds: [role] },
      });
    const first = data(await create('oldFirst', '13566660000')).id as string;
    const second = data(await create('oldSecond', '13566661111')).id as string;
    await sut.platform.runner.catchUp();
    // As rows stood before phones were claimed: no claims, one number stored twice in two spellings.
    await sut.db.pool.query(`update rm_users set phone = '+8613566660000' where id = $1`, [second]);
    await sut.db.pool.query(`delete from claims where scope = 'user.phone' and owner = any($1)`, [[first, second]]);
    await claimExistingPhones(sut.platform.context.db, createLookups(sut.platform.context.db));
    const holders = await sut.db.pool.query(`select key, owner from claims where scope = 'user.phone' and owner = any($1)`, [
      [first, second],
    ]);
    expect(holders.rows).toEqual([{ key: '13566660000', owner: first }]);
    expect((await create('oldThird', '8613566660000')).json!.data.error).toBe('PHONE_TAKEN');
  });

  it('lets one of 3 roles renamed to one name at the same moment have it; the others keep their names', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(data(await sut.call('role.create', { token: admin, body: { name: `renamer${i}` } })).id);
    const answers = await together(
      holdTable(sut.db.pool, 'claims'),
      ids.map((id) => () => sut.call('role.update', { token: admin, body: { id, name: 'Champion' } })),
    );
    expect(outcomes(answers)).toEqual([200, ...times(2, 'ROLE_EXISTS')]);
    const winner = ids[answers.findIndex((r) => r.status === 200)]!;
    const available = async (name: string) => data(await sut.call('role.check', { token: admin, query: { name } })).available as boolean;
    // The winner's old name is free again; every loser still holds its own.
    for (const [i, id] of ids.entries()) expect(await available(`renamer${i}`)).toBe(id === winner);
    expect(await available('champion')).toBe(false);
    const names = await sut.db.pool.query<{ name: string }>(`select name from rm_roles where id = any($1) order by name`, [ids]);
    expect(names.rows.filter((r) => r.name === 'Champion')).toHaveLength(1);
  });

  it('frees a deleted role name and dictionary code for the next one', async () => {
    const roleId = data(await sut.call('role.create', { token: admin, body: { name: 'shortLived' } })).id;
    data(await sut.call('role.delete', { token: admin, query: { id: roleId } }));
    data(await sut.call('role.create', { token: admin, body: { name: 'shortLived' } }));
    const typeId = data(await sut.call('dict.create', { token: admin, body: { code: 'gone', name: 'Gone' } })).id;
    data(await sut.call('dict.update', { token: admin, body: { id: typeId, code: 'moved', name: 'Gone' } }));
    data(await sut.call('dict.create', { token: admin, body: { code: 'gone', name: 'Back' } }));
    data(await sut.call('dict.delete', { token: admin, query: { id: typeId } }));
    data(await sut.call('dict.create', { token: admin, body: { code: 'moved', name: 'Again' } }));
  });

  it('keeps the name of a built-in role, which the onboarding workflow made without a claim', async () => {
    const builtin = (
      await sut.db.pool.query<{ name: string }>(`select name from rm_roles where tenant_id = 'kappa' and builtin = 'operator'`)
    ).rows[0]!.name;
    const again = await sut.call('role.create', { token: admin, body: { name: builtin } });
    expect(again.json!.data.error).toBe('ROLE_EXISTS');
  });
});

describe('edits that change nothing', () => {
  it('append no event, though the stored payload keys come back in another order', async () => {
    const body: BodyOf<'group.create'> = { name: 'Plant', type: 'office', location: 'Suzhou', sort: 3 };
    const id = data(await sut.call('group.create', { token: admin, body })).id;
    data(await sut.call('group.update', { token: admin, body: { id, ...body, parentId: null } }));
    const events = await sut.platform.context.store.readStream(`group-kappa.${id}`);
    expect(events.map((e) => e.type)).toEqual(['GroupCreated']);
  });
});

describe('sorting', () => {
  it.each(['role.list', 'dict.list', 'dict.items', 'group.list'] as const)('%s sorts only by the names it allows', async (name) => {
    const refused = await sut.call(name, { token: admin, query: { sort: malformed('__proto__') } });
    expect(refused.status).toBe(400);
    expect(refused.json!.data.error).toBe('VALIDATION');
    data(await sut.call(name, { token: admin, query: { sort: name === 'dict.items' ? 'label' : 'name', order: 'asc' } }));
  });
});
