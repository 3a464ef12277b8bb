import type { CurrentUser } from '@iot/contracts';
import { can } from '../api/session.ts';

/** One entry of the menu tree (spec §6: menu, button, interface, tab or app menu, each with permission and path). */
export interface MenuNode {
  key: string;
  /** An i18n key (static menu) or the server's own title. */
  title: string;
  path?: string;
  icon?: string;
  permission?: string;
  type?: 'menu' | 'button' | 'interface' | 'tab' | 'appMenu' | 'directory';
  prefix?: string;
  children?: MenuNode[];
}

const leaf = (key: string, path: string, permission?: string): MenuNode => ({ key, title: `menu.${key}`, path, permission, type: 'menu' });
/** A directory: `prefix` is the path the server gives it (not a screen of its own). */
const dir = (key: string, icon: string, prefix: string, children: MenuNode[]): MenuNode => ({
  key,
  title: `menu.${key}`,
  icon,
  type: 'directory',
  prefix,
  children,
});

/**
 * The screens of spec §2. Used when the server has no menu route yet, and to name screens
 * (breadcrumb, tabs) whatever the menu source.
 */
export const staticMenu: MenuNode[] = [
  { key: 'home', title: 'menu.home', path: '/index', icon: 'home', type: 'menu' },
  dir('operation', 'dashboard', '/operation', [
    leaf('dataMap', '/operation/dataMap', 'operation:dataMap:view'),
    leaf('scene', '/operation/scene', 'operation:scene:view'),
    leaf('fieldConfig', '/operation/fieldConfig', 'operation:fieldConfig:view'),
    leaf('dataMarket', '/operation/dataMarket'),
    leaf('video', '/operation/video', 'operation:video:view'),
    leaf('bigScreen', '/operation/bigScreen', 'operation:bigScreen:view'),
  ]),
  dir('device', 'device', '/device', [
    leaf('deviceList', '/device/device'),
    leaf('gateway', '/device/gateway'),
    leaf('product', '/device/product'),
    leaf('deviceGroup', '/device/grouping'),
  ]),
  dir('sceneConfig', 'scene', '/scene', [
    leaf('sceneDesign', '/scene/design'),
    leaf('linkage', '/scene/linkage'),
    leaf('linkageLog', '/scene/linkageLog'),
  ]),
  dir('analysis', 'analysis', '/analysis', [
    leaf('report', '/analysis/report'),
    leaf('history', '/analysis/history'),
    leaf('businessStats', '/analysis/business'),
    leaf('statTask', '/analysis/task'),
    leaf('project', '/analysis/project'),
    leaf('garage', '/analysis/garage'),
    leaf('regionFault', '/analysis/regionFault'),
    leaf('garageFault', '/analysis/garageFault'),
    leaf('projectFault', '/analysis/projectFault'),
    leaf('nationalFault', '/analysis/nationalFault'),
  ]),
  dir('ruleEngine', 'rule', '/rule', [
    leaf('ruleChain', '/rule/chainLibrary'),
    leaf('ruleEditor', '/rule/chainEditor'),
    leaf('ruleList', '/rule/list'),
  ]),
  dir('alarm', 'alarm', '/alarm', [
    leaf('alarmMonitor', '/alarm/monitor'),
    leaf('alarmSettings', '/alarm/settings'),
    leaf('notifySettings', '/alarm/notifySettings'),
    leaf('contacts', '/alarm/contacts'),
    leaf('notifyTemplate', '/alarm/notifyTemplates'),
    leaf('notifyConfig', '/alarm/notifyConfigs'),
    leaf('notifyRecord', '/alarm/notifyRecords'),
  ]),
  dir('productTest', 'test', '/producttest', [
    leaf('testConfig', '/producttest/config'),
    leaf('productionTest', '/producttest/production'),
    leaf('testReport', '/producttest/ptReport'),
    leaf('qualityTest', '/producttest/quality'),
    leaf('qcReport', '/producttest/qcReport'),
    leaf('batch', '/producttest/batch'),
    leaf('iccid', '/producttest/iccid'),
    leaf('userBinding', '/producttest/binding'),
  ]),
  dir('forwarding', 'forward', '/forward', [
    leaf('mqttService', '/forward/mqttServer'),
    leaf('httpService', '/forward/httpServer'),
    leaf('forwardRule', '/forward/rules'),
    leaf('mqttUser', '/forward/mqttUser'),
    leaf('mqttTopic', '/forward/mqttTopic'),
  ]),
  dir('system', 'system', '/system', [
    leaf('user', '/system/user', 'system:user:list'),
    leaf('role', '/system/role', 'system:role:list'),
    leaf('group', '/system/dept', 'system:dept:list'),
    leaf('menuManage', '/system/menu', 'system:menu:list'),
    leaf('app', '/system/app', 'system:app:list'),
    leaf('dictionary', '/system/dict', 'system:dict:list'),
    leaf('settings', '/system/settings', 'system:settings:list'),
    leaf('operationLog', '/system/log', 'system:log:list'),
    leaf('tenantAudit', '/system/tenant', 'platform:tenant:list'),
    leaf('task', '/system/task', 'system:task:view'),
    leaf('resource', '/system/resource', 'system:resource:view'),
    leaf('mqttManage', '/system/mqtt', 'system:mqtt:view'),
    leaf('file', '/system/file', 'system:file:view'),
  ]),
];

/** Screens of the shell itself, outside the menu tree: named in tabs and the breadcrumb. */
export const shellPages: MenuNode[] = [{ key: 'profile', title: 'menu.profile', path: '/profile', type: 'menu' }];

/** The i18n title of a path (leaf or directory prefix), so that server entries show in the user's language. */
export const titleByPath = new Map<string, string>(
  staticMenu.flatMap((n) => [
    [n.path ?? '', n.title] as [string, string],
    ...(n.children ?? []).map((c) => [c.path ?? '', c.title] as [string, string]),
    [n.prefix ?? '', n.title] as [string, string],
  ]),
);

const HOME_PATHS = new Set(['/home', '/home/index', '/index']);

/**
 * The i18n key naming a built-in entry of the server's menu (its stored title is Chinese): a screen or
 * directory by its path, a button or interface by the action of its permission. Null for entries users added.
 */
export function builtinTitleKey(entry: {
  builtin?: boolean;
  renamed?: boolean;
  type?: string;
  path?: string | null;
  permission?: string | null;
}): string | null {
  if (!entry.builtin || entry.renamed) return null;
  if (entry.type === 'button' || entry.type === 'interface') {
    const action = entry.permission?.split(':').pop();
    return action ? `menuAction.${action}` : null;
  }
  if (HOME_PATHS.has(entry.path ?? '')) return 'menu.home';
  return entry.path ? (titleByPath.get(entry.path) ?? null) : null;
}

/** Only what the user may see: leaves they hold the permission of, and directories with a visible child. */
export function filterMenu(nodes: MenuNode[], user: CurrentUser | null): MenuNode[] {
  const out: MenuNode[] = [];
  for (const node of nodes) {
    if (node.type === 'button' || node.type === 'interface') continue;
    if (!can(user, node.permission)) continue;
    if (node.children && node.children.length > 0) {
      const children = filterMenu(node.children, user);
      if (children.length > 0 || node.path) out.push({ ...node, children });
    } else if (node.path) out.push(node);
  }
  return out;
}

/** The chain of nodes from a root down to the node of `path`, or [] when the path is not in the tree. */
export function trail(nodes: MenuNode[], path: string): MenuNode[] {
  for (const node of nodes) {
    if (node.path === path) return [node];
    const below = node.children ? trail(node.children, path) : [];
    if (below.length > 0) return [node, ...below];
  }
  return [];
}

export function flatten(nodes: MenuNode[]): MenuNode[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children ?? [])]);
}
