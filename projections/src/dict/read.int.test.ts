import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DictEvent } from '@iot/contracts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { dictsProjection } from './dicts.ts';
import { dictCodes, dictCodeTaken, dictItemsPage, dictTypesPage } from './read.ts';

let sut: ReadModel;
const type = (typeId: string, code: string, name: string): DictEvent => ({
  type: 'DictTypeCreated',
  data: { typeId, code, name, status: 'enabled', remark: null },
});
const item = (typeId: string, itemId: string, label: string, sort: number): DictEvent => ({
  type: 'DictItemAdded',
  data: { typeId, itemId, label, value: label.toLowerCase(), sort, status: 'enabled', remark: null },
});

beforeAll(async () => {
  sut = await readModelOf(dictsProjection);
  await sut.given(dictsProjection, type('levels', 'alarm.level', 'Alarm levels'), { tenantId: 't1', at: '2026-01-01T00:00:00Z' });
  await sut.given(dictsProjection, type('kinds', 'device.kind', 'Device kinds'), { tenantId: 't1', at: '2026-01-02T00:00:00Z' });
  await sut.given(dictsProjection, type('theirs', 'alarm.level', 'Levels'), { tenantId: 't2' });
  await sut.given(dictsProjection, item('levels', 'high', 'High', 2), { tenantId: 't1' });
  await sut.given(dictsProjection, item('levels', 'low', 'Low', 1), { tenantId: 't1' });
  await sut.given(dictsProjection, item('kinds', 'meter', 'Meter', 0), { tenantId: 't1' });
  await sut.given(dictsProjection, item('theirs', 'top', 'Top', 0), { tenantId: 't2' });
  const renamed: DictEvent = {
    type: 'DictItemUpdated',
    data: { typeId: 'levels', itemId: 'high', label: 'Highest', value: 'h', sort: 3, status: 'stopped', remark: 'x' },
  };
  await sut.given(dictsProjection, renamed, { tenantId: 't1' });
});
afterAll(async () => sut?.drop());

describe('the dictionaries read module', () => {
  it('pages a tenant’s types by name or code', async () => {
    const all = await dictTypesPage(sut.db, 't1', {}, { page: 1, pageSize: 10, order: 'desc' });
    expect({ total: all.total, codes: all.rows.map((t) => t.code) }).toEqual({ total: 2, codes: ['device.kind', 'alarm.level'] });
    expect(all.rows[1]).toMatchObject({ id: 'levels', tenantId: 't1', name: 'Alarm levels', status: 'enabled', remark: null });
    expect((await dictTypesPage(sut.db, 't1', { code: 'ALARM' }, { page: 1, pageSize: 10, order: 'asc' })).rows.map((t) => t.id)).toEqual([
      'levels',
    ]);
    expect((await dictTypesPage(sut.db, 't1', { name: 'kinds' }, { page: 1, pageSize: 10, order: 'asc' })).rows.map((t) => t.id)).toEqual([
      'kinds',
    ]);
  });

  it('pages a tenant’s items of one type, by its id or code, in their order', async () => {
    const byCode = await dictItemsPage(sut.db, 't1', { code: 'alarm.level' }, { page: 1, pageSize: 10, order: 'asc' });
    expect(byCode.rows).toEqual([
      { id: 'low', typeId: 'levels', tenantId: 't1', label: 'Low', value: 'low', sort: 1, status: 'enabled', remark: null },
      { id: 'high', typeId: 'levels', tenantId: 't1', label: 'Highest', value: 'h', sort: 3, status: 'stopped', remark: 'x' },
    ]);
    expect((await dictItemsPage(sut.db, 't1', { typeId: 'kinds' }, { page: 1, pageSize: 10, order: 'asc' })).rows.map((i) => i.id)).toEqual(
      ['meter'],
    );
    expect((await dictItemsPage(sut.db, 't1', { label: 'HIGH' }, { page: 1, pageSize: 10, order: 'asc' })).rows.map((i) => i.id)).toEqual([
      'high',
    ]);
  });

  it('tells whether another type of the tenant has a code, and lists every code', async () => {
    expect(await dictCodeTaken(sut.db, 't1', 'alarm.level', 'new')).toBe(true);
    expect(await dictCodeTaken(sut.db, 't1', 'alarm.level', 'levels')).toBe(false);
    expect(await dictCodeTaken(sut.db, 't3', 'alarm.level', 'new')).toBe(false);
    expect((await dictCodes(sut.db)).map((t) => `${t.tenantId}/${t.code}/${t.id}`).sort()).toEqual([
      't1/alarm.level/levels',
      't1/device.kind/kinds',
      't2/alarm.level/theirs',
    ]);
  });
});
