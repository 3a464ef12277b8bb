import { describe, expect, it } from 'vitest';
import type { ProductFields, ThingFunction } from '@iot/contracts';
import { codeOf, scenario } from '../decider-testing.ts';
import { productDecider } from './decide.ts';
import type { ProductEvent } from '@iot/contracts';

const fields: ProductFields = {
  name: 'Sensor',
  code: 'S-1',
  type: 'direct',
  category: null,
  version: null,
  company: null,
  model: null,
  manufacturer: null,
  protocol: 'mqtt',
  description: null,
};
const temperature: ThingFunction = {
  type: 'property',
  name: 'T',
  identifier: 'temperature',
  dataType: { type: 'float', min: -40, max: 125 },
  access: 'r',
};
const humidity: ThingFunction = { ...temperature, identifier: 'humidity', name: 'H' };
const created: ProductEvent = {
  type: 'ProductCreated',
  data: { productId: 'p1', key: 'k', fields, functions: [temperature], copiedFrom: null },
};
const published = (version: number, functions: ThingFunction[]): ProductEvent => ({
  type: 'ProductPublished',
  data: { productId: 'p1', version, functions },
});
const { given } = scenario(productDecider);

describe('product decider', () => {
  it('publishes the draft as the next version, and an unchanged draft as no new version', () => {
    expect(given([created]).when({ type: 'PublishProduct', productId: 'p1' })).toEqual([published(1, [temperature])]);
    expect(given([created, published(1, [temperature])]).when({ type: 'PublishProduct', productId: 'p1' })).toEqual([]);
    const edited: ProductEvent = { type: 'ProductFunctionDefined', data: { productId: 'p1', function: humidity } };
    expect(given([created, published(1, [temperature]), edited]).when({ type: 'PublishProduct', productId: 'p1' })).toEqual([
      published(2, [temperature, humidity]),
    ]);
    // Unpublished then published again, unchanged: the same version, not a copy of it.
    const unpublished: ProductEvent = { type: 'ProductUnpublished', data: { productId: 'p1' } };
    expect(given([created, published(1, [temperature]), unpublished]).when({ type: 'PublishProduct', productId: 'p1' })).toEqual([
      published(1, [temperature]),
    ]);
  });

  it('keeps a published version as it was while the draft changes', () => {
    const history: ProductEvent[] = [
      created,
      published(1, [temperature]),
      { type: 'ProductFunctionRemoved', data: { productId: 'p1', identifier: 'temperature' } },
    ];
    const state = history.reduce(productDecider.evolve, productDecider.initialState);
    expect(state.functions).toEqual([]);
    expect(state.versions).toEqual([[temperature]]);
  });

  it('refuses a new function whose identifier is taken, and renames in place', () => {
    expect(codeOf(() => given([created]).when({ type: 'DefineFunction', productId: 'p1', function: temperature }))).toBe(
      'IDENTIFIER_TAKEN',
    );
    expect(given([created]).when({ type: 'DefineFunction', productId: 'p1', function: temperature, replaces: 'temperature' })).toEqual([]);
    expect(given([created]).when({ type: 'DefineFunction', productId: 'p1', function: humidity, replaces: 'temperature' })).toEqual([
      { type: 'ProductFunctionRemoved', data: { productId: 'p1', identifier: 'temperature' } },
      { type: 'ProductFunctionDefined', data: { productId: 'p1', function: humidity } },
    ]);
  });

  it('deletes only a product without devices, and nothing of a deleted one', () => {
    expect(codeOf(() => given([created]).when({ type: 'DeleteProduct', productId: 'p1', hasDevices: true }))).toBe('PRODUCT_IN_USE');
    const deleted: ProductEvent = { type: 'ProductDeleted', data: { productId: 'p1' } };
    expect(given([created]).when({ type: 'DeleteProduct', productId: 'p1', hasDevices: false })).toEqual([deleted]);
    expect(codeOf(() => given([created, deleted]).when({ type: 'UpdateProduct', productId: 'p1', fields }))).toBe('NOT_FOUND');
  });

  it('appends nothing for an edit that changes nothing, whatever the order of its keys', () => {
    const reordered = Object.fromEntries(Object.entries(fields).reverse()) as ProductFields;
    expect(given([created]).when({ type: 'UpdateProduct', productId: 'p1', fields: reordered })).toEqual([]);
    expect(given([created]).when({ type: 'ImportThingModel', productId: 'p1', functions: [temperature] })).toEqual([]);
  });
});
