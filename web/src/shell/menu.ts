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
  children?: MenuNode[];
}

const leaf = (key: string, path: string, permission?: string): MenuNode => ({ key, title: `menu.${key}`, path, permission, type: 'menu' });
const dir = (key: string, icon: string, children: MenuNode[]): MenuNode => ({ key, title: `menu.${key}`, icon, type: 'directory', children });

/**
 * The screens of spec §2. Used when the server has no menu route yet, and to name screens
 * (breadcrumb, tabs) whatever the menu source.
 */
export const staticMenu: MenuNode[] = [
  { key: 'home', title: 'menu.home', path: '/index', icon: 'home', type: 'menu' },
  dir('operation', 'dashboard', [
    leaf('dataMap', '/operation/map'),
    leaf('scene', '/operation/scene'),
    leaf('fieldConfig', '/operation/field'),
    leaf('dataMarket', '/operation/market'),
    leaf('video', '/operation/video'),
    leaf('bigScreen', '/operation/screen'),
  ]),
  dir('device', 'device', [
    leaf('deviceList', '/device/list'),
    leaf('gateway', '/device/gateway'),
    leaf('product', '/device/product'),
    leaf('deviceGroup', '/device/group'),
  ]),
  dir('sceneConfig', 'scene', [leaf('sceneDesign', '/scene/design'), leaf('linkage', '/scene/linkage'), leaf('linkageLog', '/scene/linkage-log')]),
  dir('analysis', 'analysis', [
    leaf('report', '/analysis/report'),
    leaf('history', '/analysis/history'),
    leaf('businessStats', '/analysis/business'),
    leaf('statTask', '/analysis/task'),
    leaf('project', '/analysis/project'),
    leaf('garage', '/analysis/garage'),
    leaf('faultStats', '/analysis/fault'),
  ]),
  dir('ruleEngine', 'rule', [leaf('ruleChain', '/rule/chain'), leaf('ruleList', '/rule/list')]),
  dir('alarm', 'alarm', [
    leaf('alarmMonitor', '/alarm/monitor'),
    leaf('alarmSettings', '/alarm/settings'),
    leaf('notifySettings', '/alarm/notify-settings'),
    leaf('contacts', '/alarm/contacts'),
    leaf('notifyTemplate', '/alarm/templates'),
    leaf('notifyConfig', '/alarm/configs'),
    leaf('notifyRecord', '/alarm/records'),
  ]),
  dir('productTest', 'test', [leaf('testConfig', '/test/config'), leaf('productionTest', '/test/production'), leaf('qualityTest', '/test/quality')]),
  dir('forwarding', 'forward', [
    leaf('mqttService', '/forward/mqtt'),
    leaf('httpService', '/forward/http'),
    leaf('forwardRule', '/forward/rules'),
    leaf('mqttAuth', '/forward/mqtt-auth'),
  ]),
  dir('system', 'system', [
    leaf('tenantAudit', '/system/tenant', 'platform:tenant:list'),
    leaf('user', '/system/user', 'system:user:list'),
    leaf('group', '/system/group', 'system:dept:list'),
    leaf('role', '/system/role', 'system:role:list'),
    leaf('menuManage', '/system/menu', 'system:menu:list'),
    leaf('app', '/system/app', 'system:app:list'),
    leaf('dictionary', '/system/dictionary', 'system:dict:list'),
    leaf('settings', '/system/settings', 'system:settings:edit'),
    leaf('operationLog', '/system/log', 'system:log:list'),
    leaf('mqttManage', '/system/mqtt', 'system:mqtt:list'),
    leaf('task', '/system/task', 'system:task:list'),
    leaf('resource', '/system/resource', 'system:resource:list'),
    leaf('file', '/system/file', 'system:file:list'),
  ]),
];

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
