import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRootChain, ROOT_CHAIN_ID, type RuleChainDefinitionIn } from '@iot/contracts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * The rule chain library over HTTP (issue 19): every tenant has its root chain, every save is a version, any
 * version restored or run, export then upload gives the same chain, and a faulty file is refused by its path.
 */
let sut: TestPlatform;
let token: string;
const ok = (r: { status: number; body: string; json: { data: any } | null }) => {
  expect(r.status, r.body).toBe(200);
  return r.json!.data;
};
const chain: RuleChainDefinitionIn = {
  name: 'Hot rooms',
  firstNodeId: 'hot',
  nodes: [
    { id: 'hot', name: 'Hot?', kind: 'filter', config: { expression: 'msg.temp > 30.0' }, position: { x: 10, y: 20 } },
    { id: 'alarm', name: 'Alarm', kind: 'createAlarm', config: { alarmName: 'Too hot', level: 4, variable: 'temp' } },
    { id: 'store', name: 'Store', kind: 'warehousing', config: {} },
  ],
  links: [
    { from: 'hot', to: 'alarm', label: 'True' },
    { from: 'hot', to: 'store', label: 'False' },
  ],
};

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'sierra', name: 'sierraCo', adminUsername: 'sierraAdmin', adminPassword: 'Sierra#pw1' });
  token = await sut.login('sierraAdmin', 'Sierra#pw1');
});
afterAll(async () => sut?.stop());

describe('rule chain library', () => {
  it('gives an approved tenant its root chain, a Warehousing node, which cannot be deleted', async () => {
    await sut.platform.runner.catchUp();
    const list = ok(await sut.call('ruleChain.list', { token, query: { root: 'true' } }));
    expect(list.rows.map((r: { id: string; root: boolean }) => [r.id, r.root])).toEqual([[ROOT_CHAIN_ID, true]]);
    const root = ok(await sut.call('ruleChain.detail', { token, query: { id: ROOT_CHAIN_ID } }));
    expect(root.chain.nodes.map((n: { kind: string }) => n.kind)).toEqual(['warehousing']);
    expect(root.chain.firstNodeId).toBe(defaultRootChain.firstNodeId);
    const refused = ok(await sut.call('ruleChain.delete', { token, query: { ids: [ROOT_CHAIN_ID] } }));
    expect(refused.results).toEqual([expect.objectContaining({ ok: false, code: 'RULE_CHAIN_ROOT' })]);
  });

  it('saves each edit as a version, restores and runs any version, and refuses a save over a later one', async () => {
    const { id, version } = ok(await sut.call('ruleChain.create', { token, body: { chain } }));
    expect(version).toBe(1);
    const edited = { ...chain, name: 'Hotter rooms' };
    expect(ok(await sut.call('ruleChain.update', { token, body: { id, chain: edited, baseVersion: 1 } })).version).toBe(2);
    const stale = await sut.call('ruleChain.update', { token, body: { id, chain: { ...chain, name: 'Lost' }, baseVersion: 1 } });
    expect(stale.status, stale.body).toBe(409);
    expect(ok(await sut.call('ruleChain.run', { token, body: { id, version: 1 } })).version).toBe(1);
    expect(ok(await sut.call('ruleChain.detail', { token, query: { id } })).chain.name).toBe('Hot rooms');
    expect(ok(await sut.call('ruleChain.restore', { token, body: { id, version: 1 } })).version).toBe(3);
    const versions = ok(await sut.call('ruleChain.versions', { token, query: { id } }));
    expect(versions.rows.map((v: any) => [v.version, v.name, v.restoredFrom, v.running, v.createdBy])).toEqual([
      [3, 'Hot rooms', 1, true, 'sierraAdmin'],
      [2, 'Hotter rooms', null, false, 'sierraAdmin'],
      [1, 'Hot rooms', null, false, 'sierraAdmin'],
    ]);
    expect(ok(await sut.call('ruleChain.delete', { token, query: { ids: [id] } })).ok).toBe(1);
    expect((await sut.call('ruleChain.detail', { token, query: { id } })).status).toBe(404);
  });

  it('export then upload gives the same chain', async () => {
    const { id } = ok(await sut.call('ruleChain.create', { token, body: { chain } }));
    const exported = await sut.call('ruleChain.export', { token, query: { id } });
    expect(exported.status, exported.body).toBe(200);
    expect(exported.headers['content-disposition']).toContain(`rule-chain-${id}-v1.json`);
    const imported = ok(await sut.call('ruleChain.import', { token, body: JSON.parse(exported.body) }));
    const [a, b] = await Promise.all(
      [id, imported.id].map(async (chainId) => ok(await sut.call('ruleChain.detail', { token, query: { id: chainId } })).chain),
    );
    expect(b).toEqual(a);
    expect(a.nodes[0].position).toEqual({ x: 10, y: 20 });
  });

  it('refuses an uploaded file whose chain has faults, naming each by its path', async () => {
    const faulty = {
      format: 'iot-rule-chain',
      formatVersion: 1,
      chain: {
        ...chain,
        nodes: chain.nodes.map((n) => (n.id === 'hot' ? { ...n, config: { expression: 'msg.temp >' } } : n)),
        links: [...chain.links!, { from: 'store', to: 'nowhere', label: 'Success' }],
      },
    };
    const r = await sut.call('ruleChain.import', { token, body: faulty as never });
    expect(r.status, r.body).toBe(400);
    expect(r.json!.data.fields.map((f: { field: string }) => f.field)).toEqual([
      'body.chain.nodes.0.config.expression',
      'body.chain.links.2.to',
    ]);
  });
});
