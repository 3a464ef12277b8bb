import { describe, expect, it } from 'vitest';
import { codeOf, scenario } from '../decider-testing.ts';
import { userDecider } from './decide.ts';
import type { UserEvent, UserProfile } from './user.ts';

const profile: UserProfile = {
  username: 'li',
  email: 'li@x.cn',
  phone: '13800000000',
  sex: 'male',
  position: null,
  groupId: null,
  roleIds: ['r1'],
  description: null,
  homePage: null,
};
const created: UserEvent = { type: 'UserCreated', data: { userId: 'u1', ...profile, isSystemAdmin: false, isTenantAdmin: false } };
const admin: UserEvent = { type: 'UserCreated', data: { userId: 'u1', ...profile, isSystemAdmin: false, isTenantAdmin: true } };
const { given } = scenario(userDecider);

describe('user decider', () => {
  it('creates a user, stopped at once when asked', () => {
    expect(
      given([]).when({ type: 'CreateUser', userId: 'u1', ...profile, isSystemAdmin: false, isTenantAdmin: false, status: 'stopped' }),
    ).toEqual([created, { type: 'UserStopped', data: { userId: 'u1' } }]);
  });
  it('refuses a second create on the same stream', () => {
    expect(
      codeOf(() => given([created]).when({ type: 'CreateUser', userId: 'u1', ...profile, isSystemAdmin: false, isTenantAdmin: false })),
    ).toBe('USERNAME_TAKEN');
  });
  it('updates a profile only when it changes', () => {
    expect(given([created]).when({ type: 'UpdateUser', userId: 'u1', ...profile })).toEqual([]);
    expect(given([created]).when({ type: 'UpdateUser', userId: 'u1', ...profile, position: 'engineer' })).toEqual([
      { type: 'UserUpdated', data: { userId: 'u1', ...profile, position: 'engineer' } },
    ]);
  });
  it('stops and enables; stopping twice changes nothing', () => {
    const stopped: UserEvent = { type: 'UserStopped', data: { userId: 'u1' } };
    expect(given([created]).when({ type: 'SetUserStatus', userId: 'u1', status: 'stopped' })).toEqual([stopped]);
    expect(given([created, stopped]).when({ type: 'SetUserStatus', userId: 'u1', status: 'stopped' })).toEqual([]);
    expect(given([created, stopped]).when({ type: 'SetUserStatus', userId: 'u1', status: 'enabled' })).toEqual([
      { type: 'UserEnabled', data: { userId: 'u1' } },
    ]);
  });
  it('never stops or deletes the tenant administrator', () => {
    expect(codeOf(() => given([admin]).when({ type: 'SetUserStatus', userId: 'u1', status: 'stopped' }))).toBe('ADMIN_PROTECTED');
    expect(codeOf(() => given([admin]).when({ type: 'DeleteUser', userId: 'u1' }))).toBe('ADMIN_PROTECTED');
  });
  it('records a password change without the password; a deleted or unknown user is not found', () => {
    expect(given([created]).when({ type: 'RecordPasswordChange', userId: 'u1', byAdministrator: true })).toEqual([
      { type: 'UserPasswordChanged', data: { userId: 'u1', byAdministrator: true } },
    ]);
    expect(codeOf(() => given([]).when({ type: 'RecordPasswordChange', userId: 'u1', byAdministrator: false }))).toBe('NOT_FOUND');
    expect(
      codeOf(() =>
        given([created, { type: 'UserDeleted', data: { userId: 'u1' } }]).when({ type: 'UpdateUser', userId: 'u1', ...profile }),
      ),
    ).toBe('NOT_FOUND');
  });
});
