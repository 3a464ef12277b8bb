import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * Issue 9 (low): the `token` cookie is Secure when the request came over HTTPS, and X-Forwarded-Proto is
 * believed only from the proxies TRUSTED_PROXIES names; COOKIE_DOMAIN scopes it to the parent domain (spec §9).
 */
let sut: TestPlatform;
const PROXY = '10.77.0.1';

beforeAll(async () => {
  sut = await startTestPlatform({ TRUSTED_PROXIES: PROXY, COOKIE_DOMAIN: '.example.com' });
  await sut.seedTenant({ id: 'cook', name: 'cookCo', adminUsername: 'cookAdmin', adminPassword: 'Cook#pw12' });
});
afterAll(async () => sut?.stop());

const loginCookie = async (remoteAddress: string, headers: Record<string, string> = {}) => {
  const r = await sut.call('auth.login', {
    body: { account: 'cookAdmin', password: 'Cook#pw12', agreement: true },
    headers,
    remoteAddress,
  });
  expect(r.status, r.body).toBe(200);
  return String(r.headers['set-cookie']);
};

describe('the token cookie', () => {
  it('is Secure behind a trusted proxy that says HTTPS, and scoped to COOKIE_DOMAIN', async () => {
    const cookie = await loginCookie(PROXY, { 'x-forwarded-proto': 'https' });
    expect(cookie).toMatch(/^token=[^;]+;/);
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; Domain=\.?example\.com/i);
  });

  it('is not Secure over plain HTTP, nor when an untrusted address claims HTTPS', async () => {
    expect(await loginCookie(PROXY)).not.toMatch(/; Secure/i);
    expect(await loginCookie('10.78.0.9', { 'x-forwarded-proto': 'https' })).not.toMatch(/; Secure/i);
  });

  it('is cleared on logout with the same domain', async () => {
    const token = (await sut.call('auth.login', { body: { account: 'cookAdmin', password: 'Cook#pw12', agreement: true } })).json!.data
      .token as string;
    const out = await sut.call('auth.logout', { token });
    expect(String(out.headers['set-cookie'])).toMatch(/^token=;.*Domain=\.?example\.com/i);
  });
});
