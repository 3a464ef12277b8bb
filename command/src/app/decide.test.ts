import { describe, expect, it } from 'vitest';
import { codeOf, scenario } from '../decider-testing.ts';
import { appDecider } from './decide.ts';
import type { AppEvent, AppFields } from './app.ts';

const app: AppFields = { type: 'server', name: 'ERP', scope: ['system:user:list'], sharing: 'organisation', remark: null };
const created: AppEvent = { type: 'AppCreated', data: { appId: 'a1', appKey: 'k1', ownerId: 'u1', ...app } };
const { given } = scenario(appDecider);

describe('app decider', () => {
  it("creates an app whose scope is within the creator's permissions, never platform ones", () => {
    expect(given([]).when({ type: 'CreateApp', appId: 'a1', appKey: 'k1', ownerId: 'u1', grantable: ['system:user:list'], app })).toEqual([
      created,
    ]);
    expect(codeOf(() => given([]).when({ type: 'CreateApp', appId: 'a1', appKey: 'k1', ownerId: 'u1', grantable: [], app }))).toBe(
      'SCOPE_EXCEEDED',
    );
    expect(
      codeOf(() =>
        given([]).when({
          type: 'CreateApp',
          appId: 'a1',
          appKey: 'k1',
          ownerId: 'u1',
          grantable: ['*'],
          app: { ...app, scope: ['platform:tenant:audit'] },
        }),
      ),
    ).toBe('SCOPE_EXCEEDED');
  });
  it('only its owner or the tenant admin manages it; the secret rotation event holds no secret', () => {
    expect(codeOf(() => given([created]).when({ type: 'RotateAppSecret', appId: 'a1', mayManage: false }))).toBe('FORBIDDEN');
    expect(given([created]).when({ type: 'RotateAppSecret', appId: 'a1', mayManage: true })).toEqual([
      { type: 'AppSecretRotated', data: { appId: 'a1' } },
    ]);
    expect(codeOf(() => given([created]).when({ type: 'DeleteApp', appId: 'a1', mayManage: false }))).toBe('FORBIDDEN');
  });
});
