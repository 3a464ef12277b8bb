import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRootChain, ruleChainDefinition, type RuleChainEvent } from '@iot/contracts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { ruleChainsProjection } from './chains.ts';
import { chainVersionOf, chainVersionsPage, ruleChainById, ruleChainsPage, runningRootChain } from './read.ts';

let sut: ReadModel;
const page = { page: 1, pageSize: 20, order: 'desc' as const };
const chainOf = (name: string) =>
  ruleChainDefinition.parse({
    name,
    firstNodeId: 'f',
    nodes: [{ id: 'f', name: 'Hot?', kind: 'filter', config: { expression: 'msg.temp > 30.0' } }],
  });
const given = (tenantId: string, event: RuleChainEvent, at: string) => sut.given(ruleChainsProjection, event, { tenantId, at });

beforeAll(async () => {
  sut = await readModelOf(ruleChainsProjection);
  await given(
    't1',
    { type: 'RuleChainCreated', data: { chainId: 'root', root: true, version: 1, chain: defaultRootChain } },
    '2026-01-01T00:00:00Z',
  );
  await given(
    't1',
    { type: 'RuleChainCreated', data: { chainId: 'c1', root: false, version: 1, chain: chainOf('Hot') } },
    '2026-01-02T00:00:00Z',
  );
  await given(
    't1',
    { type: 'RuleChainSaved', data: { chainId: 'c1', version: 2, chain: chainOf('Hotter'), restoredFrom: null, run: false } },
    '2026-01-03T00:00:00Z',
  );
  await given(
    't1',
    { type: 'RuleChainSaved', data: { chainId: 'c1', version: 3, chain: chainOf('Hot'), restoredFrom: 1, run: true } },
    '2026-01-04T00:00:00Z',
  );
  await given(
    't1',
    { type: 'RuleChainCreated', data: { chainId: 'c2', root: false, version: 1, chain: chainOf('Gone') } },
    '2026-01-05T00:00:00Z',
  );
  await given('t1', { type: 'RuleChainDeleted', data: { chainId: 'c2' } }, '2026-01-06T00:00:00Z');
  await given(
    't2',
    { type: 'RuleChainCreated', data: { chainId: 'c9', root: false, version: 1, chain: chainOf('Other') } },
    '2026-01-02T00:00:00Z',
  );
});
afterAll(async () => sut?.drop());

describe('rule chain read module', () => {
  it("lists a tenant's chains, newest first, filtered by name or root; deleted ones are gone", async () => {
    const all = await ruleChainsPage(sut.db, 't1', {}, page);
    expect(all.rows.map((r) => [r.id, r.name, r.latestVersion, r.runningVersion])).toEqual([
      ['c1', 'Hot', 3, 3],
      ['root', 'Root Rule Chain', 1, 1],
    ]);
    expect((await ruleChainsPage(sut.db, 't1', { root: true }, page)).rows.map((r) => r.id)).toEqual(['root']);
    expect((await ruleChainsPage(sut.db, 't1', { name: 'hot' }, page)).rows.map((r) => r.id)).toEqual(['c1']);
    expect(await ruleChainById(sut.db, 't2', 'c1')).toBeNull();
  });

  it('keeps every version whole; the running one by default', async () => {
    expect((await chainVersionOf(sut.db, 't1', 'c1'))?.version).toBe(3);
    expect((await chainVersionOf(sut.db, 't1', 'c1', 2))?.chain.name).toBe('Hotter');
    expect(await chainVersionOf(sut.db, 't1', 'c1', 9)).toBeNull();
    const versions = await chainVersionsPage(sut.db, 't1', 'c1', page);
    expect(versions.rows.map((v) => [v.version, v.name, v.restoredFrom, v.running])).toEqual([
      [3, 'Hot', 1, true],
      [2, 'Hotter', null, false],
      [1, 'Hot', null, false],
    ]);
  });

  it("answers a tenant's running root chain, or the default Warehousing chain before it has one", async () => {
    expect(await runningRootChain(sut.db, 't1')).toEqual({ version: 1, chain: defaultRootChain });
    expect(await runningRootChain(sut.db, 't2')).toEqual({ version: 0, chain: defaultRootChain });
  });
});
