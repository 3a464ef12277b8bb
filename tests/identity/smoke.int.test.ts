import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from './platform.ts';

let sut: TestPlatform;
beforeAll(async () => {
  sut = await startTestPlatform();
});
afterAll(async () => sut?.stop());

it('starts and logs in', async () => {
  const t = await sut.seedTenant({ id: 'alpha', name: 'alphaTenant', adminUsername: 'alphaAdmin', adminPassword: 'Alpha#pw77' });
  const token = await sut.login('alphaAdmin', 'Alpha#pw77');
  const menu = await sut.call('GET', '/api/auth/menu', { token });
  expect(menu.status).toBe(200);
  const roles = await sut.call('GET', '/api/auth/role', { token });
  console.log(JSON.stringify(roles.json).slice(0, 500), t);
  expect(roles.json!.data.total).toBe(5);
});
