import { DomainError, type EnabledStatus } from '@iot/contracts';
import { unreachable, type Decider } from '../decider.ts';
import { evolve, initialState, type AppEvent, type AppFields, type AppState } from './app.ts';

/**
 * `mayManage`: the caller owns the app or administers the tenant (checked by the route).
 * `grantable`: the permissions the caller holds ('*' for all non-platform ones); a scope cannot exceed them.
 */
export type AppCommand =
  | { type: 'CreateApp'; appId: string; appKey: string; ownerId: string; grantable: string[]; app: AppFields }
  | { type: 'UpdateApp'; appId: string; status: EnabledStatus; mayManage: boolean; grantable: string[]; app: AppFields }
  | { type: 'RotateAppSecret'; appId: string; mayManage: boolean }
  | { type: 'DeleteApp'; appId: string; mayManage: boolean };

const live = (state: AppState) => {
  if (!state.exists || state.deleted || !state.fields) throw new DomainError('NOT_FOUND');
  return state.fields;
};

function checkScope(scope: string[], grantable: string[]) {
  const all = grantable.includes('*');
  const beyond = scope.filter((p) => p.startsWith('platform:') || (!all && !grantable.includes(p)));
  if (beyond.length > 0) throw new DomainError('SCOPE_EXCEEDED', { permissions: beyond });
}

export function decide(command: AppCommand, state: AppState): AppEvent[] {
  switch (command.type) {
    case 'CreateApp': {
      if (state.exists) throw new DomainError('CONFLICT');
      checkScope(command.app.scope, command.grantable);
      const app = { ...command.app, scope: [...new Set(command.app.scope)] };
      return [{ type: 'AppCreated', data: { appId: command.appId, appKey: command.appKey, ownerId: command.ownerId, ...app } }];
    }
    case 'UpdateApp': {
      const current = live(state);
      if (!command.mayManage) throw new DomainError('FORBIDDEN');
      // Scope the app already had stays; what is added cannot exceed the caller's own permissions.
      checkScope(
        command.app.scope.filter((p) => !current.scope.includes(p)),
        command.grantable,
      );
      const next = { ...command.app, scope: [...new Set(command.app.scope)], status: command.status };
      const same = (Object.keys(next) as (keyof typeof next)[]).every((k) => JSON.stringify(next[k]) === JSON.stringify(current[k]));
      if (same) return [];
      return [{ type: 'AppUpdated', data: { appId: command.appId, ...next } }];
    }
    case 'RotateAppSecret':
      live(state);
      if (!command.mayManage) throw new DomainError('FORBIDDEN');
      return [{ type: 'AppSecretRotated', data: { appId: command.appId } }];
    case 'DeleteApp':
      live(state);
      if (!command.mayManage) throw new DomainError('FORBIDDEN');
      return [{ type: 'AppDeleted', data: { appId: command.appId } }];
    default:
      return unreachable(command);
  }
}

export const appDecider: Decider<AppCommand, AppEvent, AppState> = { initialState, evolve, decide };
export const appStream = (tenantId: string, appId: string) => `app-${tenantId}.${appId}`;
