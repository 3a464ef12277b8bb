import { describe, expect, it } from 'vitest';
import { codeOf, scenario } from '../decider-testing.ts';
import { dictDecider } from './decide.ts';
import type { DictEvent } from './dict.ts';

const created: DictEvent = { type: 'DictTypeCreated', data: { typeId: 't1', code: 'sex', name: 'Sex', status: 'enabled', remark: null } };
const item = { label: 'Male', value: 'm', sort: 0, status: 'enabled' as const, remark: null };
const added: DictEvent = { type: 'DictItemAdded', data: { typeId: 't1', itemId: 'i1', ...item } };
const { given } = scenario(dictDecider);

describe('dict decider', () => {
  it('refuses a taken code and a duplicate value within a type', () => {
    expect(
      codeOf(() =>
        given([]).when({
          type: 'CreateDictType',
          typeId: 't1',
          code: 'sex',
          name: 'Sex',
          status: 'enabled',
          remark: null,
          codeTaken: true,
        }),
      ),
    ).toBe('DICT_CODE_TAKEN');
    expect(given([created]).when({ type: 'AddDictItem', typeId: 't1', itemId: 'i1', ...item })).toEqual([added]);
    expect(codeOf(() => given([created, added]).when({ type: 'AddDictItem', typeId: 't1', itemId: 'i2', ...item }))).toBe(
      'DICT_VALUE_TAKEN',
    );
  });
  it('decides nothing for an edit of a type or an item with the same values, whatever the order of their keys', () => {
    expect(
      given([created]).when({
        remark: null,
        status: 'enabled',
        name: 'Sex',
        code: 'sex',
        typeId: 't1',
        type: 'UpdateDictType',
        codeTaken: false,
      }),
    ).toEqual([]);
    expect(
      given([created, added]).when({
        remark: null,
        status: 'enabled',
        sort: 0,
        value: 'm',
        label: 'Male',
        itemId: 'i1',
        typeId: 't1',
        type: 'UpdateDictItem',
      }),
    ).toEqual([]);
    expect(given([created, added]).when({ type: 'UpdateDictItem', typeId: 't1', itemId: 'i1', ...item, label: 'Man' })).toEqual([
      { type: 'DictItemUpdated', data: { typeId: 't1', itemId: 'i1', ...item, label: 'Man' } },
    ]);
  });
  it('removes an item it holds, not one it does not', () => {
    expect(given([created, added]).when({ type: 'RemoveDictItem', typeId: 't1', itemId: 'i1' })).toEqual([
      { type: 'DictItemRemoved', data: { typeId: 't1', itemId: 'i1' } },
    ]);
    expect(codeOf(() => given([created]).when({ type: 'RemoveDictItem', typeId: 't1', itemId: 'i1' }))).toBe('NOT_FOUND');
  });
});
