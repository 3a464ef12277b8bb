import { describe, expect, it } from 'vitest';
import { codeOf, scenario } from '../decider-testing.ts';
import { roleDecider } from './decide.ts';
import type { RoleEvent } from './role.ts';

const created: RoleEvent = { type: 'RoleCreated', data: { roleId: 'r1', name: 'Ops', remark: null, menuIds: ['a'], builtin: null } };
const { given } = scenario(roleDecider);

describe('role decider', () => {
  it('creates a role with its menus; a taken name is "Role already exists"', () => {
    expect(
      given([]).when({ type: 'CreateRole', roleId: 'r1', name: 'Ops', remark: null, menuIds: ['a', 'a'], builtin: null, nameTaken: false }),
    ).toEqual([created]);
    expect(
      codeOf(() =>
        given([]).when({ type: 'CreateRole', roleId: 'r1', name: 'Ops', remark: null, menuIds: [], builtin: null, nameTaken: true }),
      ),
    ).toBe('ROLE_EXISTS');
    expect(codeOf(() => given([created]).when({ type: 'UpdateRole', roleId: 'r1', name: 'Other', remark: null, nameTaken: true }))).toBe(
      'ROLE_EXISTS',
    );
  });
  it('grants menus only when the set changes', () => {
    expect(given([created]).when({ type: 'GrantRoleMenus', roleId: 'r1', menuIds: ['a'] })).toEqual([]);
    expect(given([created]).when({ type: 'GrantRoleMenus', roleId: 'r1', menuIds: ['b', 'a'] })).toEqual([
      { type: 'RoleMenusGranted', data: { roleId: 'r1', menuIds: ['b', 'a'] } },
    ]);
  });
  it('decides nothing for an edit with the same name and remark', () => {
    expect(given([created]).when({ type: 'UpdateRole', roleId: 'r1', name: 'Ops', remark: null, nameTaken: false })).toEqual([]);
  });
  it('deletes a role nobody holds; never the built-in tenant-admin role', () => {
    expect(codeOf(() => given([created]).when({ type: 'DeleteRole', roleId: 'r1', inUse: true }))).toBe('ROLE_IN_USE');
    expect(given([created]).when({ type: 'DeleteRole', roleId: 'r1', inUse: false })).toEqual([
      { type: 'RoleDeleted', data: { roleId: 'r1' } },
    ]);
    const admin: RoleEvent = { type: 'RoleCreated', data: { ...created.data, builtin: 'tenantAdmin' } as never };
    expect(codeOf(() => given([admin]).when({ type: 'DeleteRole', roleId: 'r1', inUse: false }))).toBe('ADMIN_PROTECTED');
    // Any built-in role (operator, auditor, ...) stays: the toolbar's delete is refused like the row's.
    const operator: RoleEvent = { type: 'RoleCreated', data: { ...created.data, builtin: 'operator' } } as RoleEvent;
    expect(codeOf(() => given([operator]).when({ type: 'DeleteRole', roleId: 'r1', inUse: false }))).toBe('BUILTIN_ROLE');
  });
});
