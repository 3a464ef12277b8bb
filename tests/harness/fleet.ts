import { ok, type BodyOf } from './api.ts';
import type { TestPlatform } from './platform.ts';

/** A float property `temperature`: the thing model most tests need and none of them is about. */
export const temperature: BodyOf<'product.defineFunction'>['function'] = {
  type: 'property',
  name: '温度',
  identifier: 'temperature',
  dataType: { type: 'float', min: -40, max: 125, unit: '°C' },
  access: 'r',
};

/** A product made over the API with its thing model's functions, published unless told not to; its id. */
export async function seedProduct(
  sut: TestPlatform,
  token: string,
  code: string,
  options: { type?: BodyOf<'product.create'>['type']; functions?: BodyOf<'product.defineFunction'>['function'][]; publish?: boolean } = {},
): Promise<string> {
  const { id } = ok(await sut.call('product.create', { token, body: { name: `P ${code}`, code, type: options.type ?? 'direct' } }));
  for (const fn of options.functions ?? [temperature])
    ok(await sut.call('product.defineFunction', { token, body: { productId: id, function: fn } }));
  if (options.publish ?? true) ok(await sut.call('product.publish', { token, body: { id } }));
  return id;
}

/** A group made over the API under `parentId` (a root group without one); its id. */
export async function seedGroup(
  sut: TestPlatform,
  token: string,
  name: string,
  parentId: string | null = null,
  type: BodyOf<'group.create'>['type'] = 'office',
): Promise<string> {
  return ok(await sut.call('group.create', { token, body: { name, type, parentId } })).id;
}

/** Devices of one product made over the API, each named by its SN and placed in its group (none when null); SN to id and secret. */
export async function seedDevices(
  sut: TestPlatform,
  token: string,
  productId: string,
  devices: ReadonlyArray<readonly [sn: string, groupId: string | null]>,
): Promise<Record<string, { id: string; secret: string }>> {
  const made: Record<string, { id: string; secret: string }> = {};
  for (const [sn, groupId] of devices) {
    const { id, secret } = ok(await sut.call('device.create', { token, body: { sn, name: sn, productId, groupId } }));
    made[sn] = { id, secret };
  }
  await sut.platform.runner.catchUp();
  return made;
}
