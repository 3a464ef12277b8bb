import { describe, expect, it } from 'vitest';
import type { TemplateFields, VariableFields } from '@iot/contracts';
import { codeOf, scenario } from '../decider-testing.ts';
import { templateDecider } from './decide.ts';
import type { TemplateEvent } from './template.ts';

const fields: TemplateFields = {
  name: 'T',
  productId: 'p1',
  protocol: 'modbus-rtu',
  acquisitionPeriod: 10,
  frequency: 1,
  storageMode: 'both',
  upload: 'periodic',
  retentionDays: 30,
  remark: null,
};
const variable: VariableFields = {
  name: 'V',
  type: 'analog',
  attribute: 'CLIENT',
  access: 'r',
  identifier: 'voltage',
  unit: 'V',
  base: 0,
  mapping: null,
  compute: false,
  group: null,
  modbus: null,
  plc: null,
};
const created: TemplateEvent = { type: 'TemplateCreated', data: { templateId: 't1', fields } };
const { given } = scenario(templateDecider);

describe('template decider', () => {
  it("takes a variable only under a property identifier of the product's thing model", () => {
    expect(codeOf(() => given([created]).when({ type: 'DefineVariable', templateId: 't1', variable, properties: ['current'] }))).toBe(
      'NOT_A_PROPERTY',
    );
    const defined: TemplateEvent = { type: 'TemplateVariableDefined', data: { templateId: 't1', variable } };
    expect(given([created]).when({ type: 'DefineVariable', templateId: 't1', variable, properties: ['voltage'] })).toEqual([defined]);
    expect(given([created, defined]).when({ type: 'DefineVariable', templateId: 't1', variable, properties: ['voltage'] })).toEqual([]);
  });

  it('stays with its product', () => {
    expect(codeOf(() => given([created]).when({ type: 'UpdateTemplate', templateId: 't1', fields: { ...fields, productId: 'p2' } }))).toBe(
      'TEMPLATE_PRODUCT_MISMATCH',
    );
  });
});
