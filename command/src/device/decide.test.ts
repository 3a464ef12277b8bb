import { describe, expect, it } from 'vitest';
import { codeOf, scenario } from '../decider-testing.ts';
import { deviceDecider, type DeviceCommand } from './decide.ts';
import type { DeviceEvent } from '@iot/contracts';

const create: Extract<DeviceCommand, { type: 'CreateDevice' }> = {
  type: 'CreateDevice',
  deviceId: 'd1',
  sn: 'SN-1',
  name: 'one',
  productId: 'p1',
  modelVersion: 1,
  nodeType: 'subDevice',
  groupId: null,
  gatewayId: null,
  location: { lng: 121.47, lat: 31.23, address: null },
  version: null,
  tags: ['a', 'a', 'b'],
  remark: null,
  secretHash: 'h',
};
const { type: _type, ...createdData } = create;
const created: DeviceEvent = { type: 'DeviceCreated', data: { ...createdData, tags: ['a', 'b'] } };
const { given } = scenario(deviceDecider);

describe('device decider', () => {
  it('creates once, with its tags made unique; a second create of the stream decides nothing', () => {
    expect(given([]).when(create)).toEqual([created]);
    expect(given([created]).when(create)).toEqual([]);
  });

  it('decides nothing for an edit, move, enable or template that changes nothing', () => {
    const edit = {
      type: 'UpdateDevice',
      deviceId: 'd1',
      name: 'one',
      location: created.data.location,
      version: null,
      tags: ['b', 'a'].sort(),
      remark: null,
    } as const;
    expect(given([created]).when({ ...edit, tags: ['a', 'b'] })).toEqual([]);
    expect(given([created]).when({ type: 'MoveDevice', deviceId: 'd1', groupId: null })).toEqual([]);
    expect(given([created]).when({ type: 'EnableDevice', deviceId: 'd1' })).toEqual([]);
    expect(given([created]).when({ type: 'ApplyTemplate', deviceId: 'd1', templateId: null, templateProductId: null })).toEqual([]);
  });

  it('edits only the fields an update names: the event carries the others as they were', () => {
    expect(given([created]).when({ type: 'UpdateDevice', deviceId: 'd1', name: 'renamed' })).toEqual([
      {
        type: 'DeviceUpdated',
        data: { deviceId: 'd1', name: 'renamed', location: create.location, version: null, tags: ['a', 'b'], remark: null },
      },
    ]);
    expect(given([created]).when({ type: 'UpdateDevice', deviceId: 'd1', remark: 'noted', tags: ['c', 'c'] })).toEqual([
      {
        type: 'DeviceUpdated',
        data: { deviceId: 'd1', name: 'one', location: create.location, version: null, tags: ['c'], remark: 'noted' },
      },
    ]);
    expect(given([created]).when({ type: 'UpdateDevice', deviceId: 'd1' })).toEqual([]);
  });

  it('disables and enables; a disabled device disabled again decides nothing', () => {
    const disabled: DeviceEvent = { type: 'DeviceDisabled', data: { deviceId: 'd1' } };
    expect(given([created]).when({ type: 'DisableDevice', deviceId: 'd1' })).toEqual([disabled]);
    expect(given([created, disabled]).when({ type: 'DisableDevice', deviceId: 'd1' })).toEqual([]);
    expect(given([created, disabled]).when({ type: 'EnableDevice', deviceId: 'd1' })).toEqual([
      { type: 'DeviceEnabled', data: { deviceId: 'd1' } },
    ]);
  });

  it('refuses a template of another product, a gateway behind a gateway, and itself as its gateway', () => {
    expect(codeOf(() => given([created]).when({ type: 'ApplyTemplate', deviceId: 'd1', templateId: 't', templateProductId: 'p2' }))).toBe(
      'TEMPLATE_PRODUCT_MISMATCH',
    );
    expect(codeOf(() => given([created]).when({ type: 'BindGateway', deviceId: 'd1', gatewayId: 'd1' }))).toBe('NOT_A_GATEWAY');
    const gateway: DeviceEvent = { type: 'DeviceCreated', data: { ...created.data, nodeType: 'gateway' } };
    expect(codeOf(() => given([gateway]).when({ type: 'BindGateway', deviceId: 'd1', gatewayId: 'g2' }))).toBe('NOT_A_GATEWAY');
    expect(given([created]).when({ type: 'BindGateway', deviceId: 'd1', gatewayId: 'g1' })).toEqual([
      { type: 'DeviceGatewayBound', data: { deviceId: 'd1', gatewayId: 'g1' } },
    ]);
  });

  it('keeps a gateway with sub-devices, deletes the rest with their SN, and nothing acts on a deleted device', () => {
    expect(codeOf(() => given([created]).when({ type: 'DeleteDevice', deviceId: 'd1', hasSubDevices: true }))).toBe('GATEWAY_HAS_DEVICES');
    const deleted: DeviceEvent = { type: 'DeviceDeleted', data: { deviceId: 'd1', sn: 'SN-1' } };
    expect(given([created]).when({ type: 'DeleteDevice', deviceId: 'd1', hasSubDevices: false })).toEqual([deleted]);
    expect(codeOf(() => given([created, deleted]).when({ type: 'RotateSecret', deviceId: 'd1', secretHash: 'x' }))).toBe('NOT_FOUND');
    expect(codeOf(() => given([]).when({ type: 'EnableDevice', deviceId: 'd1' }))).toBe('NOT_FOUND');
  });

  it('binds to a published thing-model version only', () => {
    expect(codeOf(() => given([created]).when({ type: 'UpgradeModel', deviceId: 'd1', modelVersion: 0 }))).toBe('PRODUCT_NOT_PUBLISHED');
    expect(given([created]).when({ type: 'UpgradeModel', deviceId: 'd1', modelVersion: 2 })).toEqual([
      { type: 'DeviceModelUpgraded', data: { deviceId: 'd1', modelVersion: 2 } },
    ]);
  });
});
