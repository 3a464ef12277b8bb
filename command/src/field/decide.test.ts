import { describe, expect, it } from 'vitest';
import type { FieldDefinition, FieldDefinitionEvent, FieldSiteEvent, SiteParameters } from '@iot/contracts';
import { codeOf, scenario } from '../decider-testing.ts';
import { fieldDefinitionsDecider, fieldSiteDecider, MAX_FIELDS } from './decide.ts';

const params: SiteParameters = {
  commissioningDate: '2024-05-01',
  ratedCapacityKw: 1200,
  address: '1 Solar Road',
  contacts: [{ name: 'Li Lei', phone: '+86 138 0000 0000', role: 'Site manager' }],
  custom: {},
};
const inverters: FieldDefinition = { key: 'inverters', labelZh: '逆变器数量', labelEn: 'Inverters', type: 'number', required: true };
const gridDate: FieldDefinition = { key: 'gridDate', labelZh: '并网日期', labelEn: 'Grid connection', type: 'date', required: false };
const site = scenario(fieldSiteDecider);
const defs = scenario(fieldDefinitionsDecider);

describe('site parameters decider', () => {
  it('saves the parameters, and the same ones again append nothing', () => {
    const configured: FieldSiteEvent = { type: 'FieldSiteConfigured', data: { groupId: 'g1', ...params } };
    expect(site.given([]).when({ type: 'ConfigureSite', groupId: 'g1', params, definitions: [] })).toEqual([configured]);
    expect(site.given([configured]).when({ type: 'ConfigureSite', groupId: 'g1', params, definitions: [] })).toEqual([]);
    expect(
      site
        .given([configured])
        .when({ type: 'ConfigureSite', groupId: 'g1', params: { ...params, ratedCapacityKw: 1500 }, definitions: [] }),
    ).toEqual([{ type: 'FieldSiteConfigured', data: { groupId: 'g1', ...params, ratedCapacityKw: 1500 } }]);
  });

  it('checks custom values against the definitions: known, of their type, required ones filled', () => {
    const definitions = [inverters, gridDate];
    const when = (custom: SiteParameters['custom']) => () =>
      site.given([]).when({ type: 'ConfigureSite', groupId: 'g1', params: { ...params, custom }, definitions });
    expect(codeOf(when({ inverters: 4, colour: 'red' }))).toBe('FIELD_UNKNOWN');
    expect(codeOf(when({ inverters: '4' }))).toBe('FIELD_TYPE');
    expect(codeOf(when({ inverters: 4, gridDate: '2024-02-30' }))).toBe('FIELD_TYPE');
    expect(codeOf(when({ gridDate: '2024-02-03' }))).toBe('FIELD_REQUIRED');
    expect(codeOf(when({ inverters: null }))).toBe('FIELD_REQUIRED');
    expect(when({ inverters: 4, gridDate: '' })()).toEqual([
      { type: 'FieldSiteConfigured', data: { groupId: 'g1', ...params, custom: { inverters: 4 } } },
    ]);
  });
});

describe('field definitions decider', () => {
  const defined: FieldDefinitionEvent = { type: 'FieldDefined', data: inverters };

  it('defines a field, redefines it only when it changed, and removes it once', () => {
    expect(defs.given([]).when({ type: 'DefineField', definition: inverters })).toEqual([defined]);
    expect(defs.given([defined]).when({ type: 'DefineField', definition: inverters })).toEqual([]);
    const optional = { ...inverters, required: false };
    expect(defs.given([defined]).when({ type: 'DefineField', definition: optional })).toEqual([{ type: 'FieldDefined', data: optional }]);
    const removed: FieldDefinitionEvent = { type: 'FieldDefinitionRemoved', data: { key: 'inverters' } };
    expect(defs.given([defined]).when({ type: 'RemoveField', key: 'inverters' })).toEqual([removed]);
    expect(codeOf(() => defs.given([defined, removed]).when({ type: 'RemoveField', key: 'inverters' }))).toBe('NOT_FOUND');
  });

  it('keeps the first-defined order and refuses a field past the limit', () => {
    const many: FieldDefinitionEvent[] = Array.from({ length: MAX_FIELDS }, (_, i) => ({
      type: 'FieldDefined',
      data: { ...gridDate, key: `f${i}` },
    }));
    expect(codeOf(() => defs.given(many).when({ type: 'DefineField', definition: inverters }))).toBe('FIELD_LIMIT');
    expect(defs.given(many).when({ type: 'DefineField', definition: { ...gridDate, key: 'f3', labelEn: 'Third' } })).toHaveLength(1);
  });
});
