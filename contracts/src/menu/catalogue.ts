import { perm } from '../identity/permissions.ts';
import type { MenuType } from '../identity/menu.ts';
import type { MenuFields } from './events.ts';

/** A built-in menu entry; its id is its key, stable across starts so that seeding is idempotent. */
export interface BuiltinMenu extends MenuFields {
  id: string;
}

type Entry = [suffix: string, name: string, type?: MenuType];
interface Screen {
  key: string;
  name: string;
  router: string;
  /** Buttons and interfaces under the screen: their permission is `<permissionPrefix>:<suffix>` unless it holds a colon. */
  entries?: Entry[];
  permissionPrefix?: string;
  /** A screen of the system administrator alone (the tenant audit): tenants never see its entry. */
  platformOnly?: boolean;
}
interface Area {
  key: string;
  name: string;
  icon: string;
  screens: Screen[];
}

const crud: Entry[] = [
  ['list', '查询', 'interface'],
  ['add', '新增', 'button'],
  ['edit', '修改', 'button'],
  ['delete', '删除', 'button'],
];

/** A statistics screen: its numbers, and their export. */
const statEntries: Entry[] = [
  ['list', '查询', 'interface'],
  ['export', '导出', 'button'],
];

/** Spec §2: every top-level area and its screens; system management with a button or interface for each of its routes. */
const areas: Area[] = [
  {
    key: 'home',
    name: '首页',
    icon: 'home',
    screens: [{ key: 'index', name: '首页', router: 'Index', entries: [['dashboard', '仪表盘', 'interface']] }],
  },
  {
    key: 'operation',
    name: '运营中心',
    icon: 'operation',
    screens: [
      { key: 'dataMap', name: '数据地图', router: 'DataMap', entries: [['list', '查询', 'interface']] },
      { key: 'scene', name: '场景', router: 'OperationScene', entries: [...crud, ['element', '拓扑元件', 'button']] },
      {
        key: 'fieldConfig',
        name: '现场配置',
        router: 'FieldConfig',
        entries: [
          ['list', '查询', 'interface'],
          ['edit', '修改', 'button'],
          ['field', '字段定义', 'button'],
        ],
      },
      {
        key: 'dataMarket',
        name: '数据市场',
        router: 'DataMarket',
        entries: [...crud, ['subscribe', '订阅', 'button'], ['revoke', '撤销订阅', 'button'], ['data', '数据接口', 'interface']],
      },
      { key: 'video', name: '视频监控', router: 'VideoSurveillance', entries: crud },
      { key: 'bigScreen', name: '数据大屏', router: 'BigScreen', entries: [...crud, ['share', '分享链接', 'button']] },
    ],
  },
  {
    key: 'device',
    name: '设备管理',
    icon: 'device',
    screens: [
      {
        key: 'device',
        name: '设备',
        router: 'Device',
        entries: [
          ...crud,
          ['secret', '重置密钥', 'button'],
          ['import', '导入', 'button'],
          ['export', '导出', 'button'],
          ['history', '变更历史', 'interface'],
          ['command', '下发指令', 'button'],
        ],
      },
      {
        key: 'gateway',
        name: '网关',
        router: 'Gateway',
        entries: [
          ['list', '查询', 'interface'],
          ['edit', '修改', 'button'],
        ],
      },
      { key: 'product', name: '产品', router: 'Product', entries: [...crud, ['publish', '发布', 'button']] },
      { key: 'grouping', name: '分组', router: 'Grouping' },
      { key: 'template', name: '模板', router: 'Template', entries: [...crud, ['apply', '应用', 'button']] },
      { key: 'mqttConfig', name: 'MQTT配置', router: 'MqttConfig', entries: crud },
      {
        key: 'ota',
        name: '升级任务',
        router: 'OtaTask',
        entries: [
          ['list', '查询', 'interface'],
          ['add', '新增', 'button'],
          ['pause', '暂停继续', 'button'],
          ['cancel', '取消', 'button'],
          ['restart', '重启任务', 'button'],
        ],
      },
    ],
  },
  {
    key: 'scene',
    name: '场景配置',
    icon: 'scene',
    screens: [
      {
        key: 'design',
        name: '场景设计',
        router: 'SceneDesign',
        entries: [
          ['add', '新增', 'button'],
          ['edit', '修改', 'button'],
        ],
      },
      {
        key: 'linkage',
        name: '场景联动',
        router: 'SceneLinkage',
        entries: [
          ['list', '查询', 'interface'],
          ['delete', '删除', 'button'],
          ['enable', '启用停用', 'button'],
          ['invoke', '手动触发', 'button'],
        ],
      },
      {
        key: 'linkageLog',
        name: '联动日志',
        router: 'LinkageLog',
        entries: [
          ['list', '查询', 'interface'],
          ['export', '导出', 'button'],
        ],
      },
    ],
  },
  {
    key: 'analysis',
    name: '数据分析',
    icon: 'analysis',
    screens: [
      { key: 'report', name: '报表定制', router: 'ReportCustom', entries: [...crud, ['export', '导出', 'button']] },
      { key: 'history', name: '历史数据', router: 'HistoryData' },
      { key: 'business', name: '业务统计', router: 'BusinessStatistics', entries: [...statEntries, ['price', '电价方案', 'button']] },
      {
        key: 'task',
        name: '统计任务',
        router: 'StatTask',
        entries: [...crud, ['enable', '启用停用', 'button'], ['result', '统计结果', 'interface']],
      },
      { key: 'project', name: '项目管理', router: 'ProjectManagement', entries: statEntries },
      { key: 'garage', name: '车库管理', router: 'GarageManagement', entries: statEntries },
      { key: 'regionFault', name: '区域故障统计', router: 'RegionalFault', entries: statEntries },
      { key: 'garageFault', name: '车库故障统计', router: 'GarageFault', entries: statEntries },
      { key: 'projectFault', name: '项目故障统计', router: 'ProjectFault', entries: statEntries },
      { key: 'nationalFault', name: '全国故障统计', router: 'NationalFault', entries: statEntries },
    ],
  },
  {
    key: 'rule',
    name: '规则引擎',
    icon: 'rule',
    screens: [
      {
        key: 'chainLibrary',
        name: '规则链库',
        router: 'RuleChainLibrary',
        entries: [...crud, ['export', '导出', 'button'], ['import', '导入', 'button'], ['run', '切换运行版本', 'button']],
      },
      {
        key: 'chainEditor',
        name: '规则链编辑',
        router: 'RuleChainEditor',
        entries: [
          ['list', '查询', 'interface'],
          ['debug', '节点调试', 'button'],
          ['replay', '消息回放', 'button'],
        ],
      },
      { key: 'list', name: '规则列表', router: 'RuleList', entries: [['list', '查询', 'interface']] },
    ],
  },
  {
    key: 'alarm',
    name: '故障告警',
    icon: 'alarm',
    screens: [
      {
        key: 'monitor',
        name: '告警监控',
        router: 'AlarmMonitor',
        entries: [
          ['list', '查询', 'interface'],
          ['add', '故障录入', 'button'],
          ['ack', '确认', 'button'],
          ['process', '处理', 'button'],
          ['clear', '清除', 'button'],
          ['ticket', '工单', 'button'],
          ['export', '导出', 'button'],
        ],
      },
      { key: 'settings', name: '告警设置', router: 'AlarmSettings', entries: crud },
      {
        key: 'notifySettings',
        name: '通知设置',
        router: 'NotifySettings',
        entries: [
          ['list', '查询', 'interface'],
          ['edit', '修改', 'button'],
        ],
      },
      { key: 'contacts', name: '告警联系人', router: 'AlertContacts', entries: crud },
      { key: 'notifyTemplates', name: '通知模板', router: 'NotifyTemplates', entries: crud },
      { key: 'notifyConfigs', name: '通知配置', router: 'NotifyConfigs', entries: crud },
      {
        key: 'notifyRecords',
        name: '通知记录',
        router: 'NotifyRecords',
        entries: [
          ['list', '查询', 'interface'],
          ['read', '标记已读', 'button'],
          ['retry', '重新发送', 'button'],
        ],
      },
    ],
  },
  {
    key: 'system',
    name: '系统管理',
    icon: 'system',
    screens: [
      { key: 'user', name: '用户管理', router: 'User', entries: [...crud, ['resetPwd', '重置密码', 'button']] },
      { key: 'role', name: '角色管理', router: 'Role', entries: [...crud, ['grant', '分配菜单', 'button']] },
      { key: 'dept', name: '分组管理', router: 'Dept', entries: crud },
      {
        key: 'menu',
        name: '菜单管理',
        router: 'Menu',
        entries: [
          ['list', '查询', 'interface'],
          [perm.menuAdd, '新增', 'button'],
          [perm.menuEdit, '修改', 'button'],
          [perm.menuDelete, '删除', 'button'],
        ],
      },
      { key: 'app', name: '应用与密钥', router: 'App', entries: [...crud, ['secret', '重置密钥', 'button']] },
      { key: 'dict', name: '字典管理', router: 'Dict', entries: crud },
      {
        key: 'settings',
        name: '系统设置',
        router: 'SystemSettings',
        entries: [
          ['list', '查询', 'interface'],
          ['edit', '修改', 'button'],
        ],
      },
      {
        key: 'log',
        name: '操作日志',
        router: 'OperationLog',
        entries: [
          ['list', '查询', 'interface'],
          ['export', '导出', 'button'],
        ],
      },
      {
        key: 'audit',
        name: '审计追踪',
        router: 'AuditTrail',
        entries: [
          ['list', '查询', 'interface'],
          ['export', '导出', 'button'],
        ],
      },
      {
        key: 'tenant',
        name: '租户审核',
        router: 'TenantAudit',
        platformOnly: true,
        entries: [
          [perm.tenantList, '查询', 'interface'],
          [perm.tenantAudit, '审核', 'button'],
        ],
      },
      {
        key: 'task',
        name: '任务管理',
        router: 'Task',
        entries: [
          ['list', '查询', 'interface'],
          ['runNow', '立即执行', 'button'],
        ],
      },
      { key: 'resource', name: '资源管理', router: 'Resource', entries: [['list', '查询', 'interface']] },
      {
        key: 'mqtt',
        name: 'MQTT管理',
        router: 'Mqtt',
        entries: [
          ['list', '查询', 'interface'],
          ['disconnect', '断开连接', 'button'],
        ],
      },
      {
        key: 'file',
        name: '文件管理',
        router: 'FileManagement',
        entries: [
          ['list', '查询', 'interface'],
          ['upload', '上传', 'button'],
          ['download', '下载', 'button'],
          ['delete', '删除', 'button'],
        ],
      },
    ],
  },
  {
    key: 'producttest',
    name: '产品测试',
    icon: 'test',
    screens: [
      { key: 'config', name: '测试配置', router: 'PtConfig', entries: crud },
      {
        key: 'production',
        name: '生产测试',
        router: 'ProductionTest',
        entries: [
          ['list', '查询', 'interface'],
          ['ptTest', '测试', 'button'],
          ['report', '生成报告', 'button'],
          ['submit', '提交', 'button'],
          ['return', '退回生产', 'button'],
          ['upgrade', '升级', 'button'],
          ['sn', '设置SN', 'button'],
          ['operation', '操作记录', 'interface'],
          ['operationExport', '导出操作记录', 'button'],
        ],
      },
      {
        key: 'ptReport',
        name: '测试报告',
        router: 'PtReport',
        entries: [
          ['list', '查询', 'interface'],
          ['export', '导出', 'button'],
        ],
      },
      {
        key: 'quality',
        name: '质量测试',
        router: 'QualityTest',
        entries: [
          ['list', '查询', 'interface'],
          ['qcTest', '质检', 'button'],
          ['finish', '完成', 'button'],
          ['submit', '提交', 'button'],
          ['return', '退回', 'button'],
        ],
      },
      {
        key: 'qcReport',
        name: '质检报告',
        router: 'QcReport',
        entries: [
          ['list', '查询', 'interface'],
          ['export', '导出', 'button'],
        ],
      },
      { key: 'batch', name: '批次管理', router: 'Batch', entries: crud },
      {
        key: 'iccid',
        name: 'ICCID',
        router: 'Iccid',
        entries: [
          ['list', '查询', 'interface'],
          ['add', '新增', 'button'],
          ['import', '导入', 'button'],
          ['delete', '删除', 'button'],
        ],
      },
      {
        key: 'binding',
        name: '用户绑定',
        router: 'UserBinding',
        entries: [
          ['list', '查询', 'interface'],
          ['bind', '绑定', 'button'],
          ['unbind', '解绑', 'button'],
        ],
      },
    ],
  },
  {
    key: 'forward',
    name: '转发服务',
    icon: 'forward',
    screens: [
      { key: 'mqttServer', name: 'MQTT服务', router: 'MqttServer', entries: [...crud, ['test', '连接测试', 'button']] },
      { key: 'httpServer', name: 'HTTP服务', router: 'HttpServer', entries: [...crud, ['test', '连接测试', 'button']] },
      {
        key: 'rules',
        name: '转发规则',
        router: 'ForwardRules',
        entries: [...crud, ['dead', '死信', 'interface'], ['retry', '重新发送', 'button'], ['deadDelete', '删除死信', 'button']],
      },
      { key: 'mqttUser', name: 'MQTT用户', router: 'MqttAuthUser', entries: crud },
      { key: 'mqttTopic', name: 'MQTT主题', router: 'MqttAuthTopic', entries: crud },
    ],
  },
];

function build(): BuiltinMenu[] {
  const menus: BuiltinMenu[] = [];
  const add = (m: BuiltinMenu) => menus.push(m);
  areas.forEach((area, a) => {
    add({
      id: area.key,
      type: 'menu',
      name: area.name,
      routerName: null,
      icon: area.icon,
      permission: null,
      path: `/${area.key}`,
      component: 'Layout',
      sort: a,
      parentId: null,
    });
    area.screens.forEach((screen, s) => {
      const id = `${area.key}.${screen.key}`;
      const path = `/${area.key}/${screen.key}`;
      add({
        id,
        type: 'menu',
        name: screen.name,
        routerName: screen.router,
        icon: null,
        permission: screen.platformOnly ? `platform:${screen.key}:view` : `${area.key}:${screen.key}:view`,
        path,
        component: `${area.key}/${screen.key}/index`,
        sort: s,
        parentId: area.key,
      });
      (screen.entries ?? []).forEach(([suffix, name, type = 'button'], e) => {
        const permission = suffix.includes(':') ? suffix : `${area.key}:${screen.key}:${suffix}`;
        add({
          id: `${id}.${permission.split(':').at(-1)}`,
          type,
          name,
          routerName: null,
          icon: null,
          permission,
          path: `${path}#${permission}`,
          component: null,
          sort: e,
          parentId: id,
        });
      });
    });
  });
  return menus;
}

export const builtinMenus: readonly BuiltinMenu[] = build();

/** English titles of the built-in entries, by id: areas and screens, then buttons and interfaces by their last part. */
const englishAreasAndScreens: Record<string, string> = {
  home: 'Home',
  'home.index': 'Home',
  operation: 'Operation center',
  'operation.dataMap': 'Data map',
  'operation.scene': 'Scene',
  'operation.fieldConfig': 'Field configuration',
  'operation.dataMarket': 'Data market',
  'operation.video': 'Video surveillance',
  'operation.bigScreen': 'Data big screen',
  device: 'Device management',
  'device.device': 'Devices',
  'device.gateway': 'Gateways',
  'device.product': 'Products',
  'device.grouping': 'Grouping',
  'device.template': 'Templates',
  'device.mqttConfig': 'MQTT configs',
  'device.ota': 'Upgrade tasks',
  scene: 'Scene configuration',
  'scene.design': 'Scene design',
  'scene.linkage': 'Scene linkage',
  'scene.linkageLog': 'Linkage log',
  analysis: 'Data analysis',
  'analysis.report': 'Report customization',
  'analysis.history': 'Historical data',
  'analysis.business': 'Business statistics',
  'analysis.task': 'Statistic tasks',
  'analysis.project': 'Project management',
  'analysis.garage': 'Garage management',
  'analysis.regionFault': 'Regional fault statistics',
  'analysis.garageFault': 'Garage fault statistics',
  'analysis.projectFault': 'Project fault statistics',
  'analysis.nationalFault': 'National fault statistics',
  rule: 'Rule engine',
  'rule.chainLibrary': 'Rule chain library',
  'rule.chainEditor': 'Rule chain editor',
  'rule.list': 'Rule list',
  alarm: 'Fault alarm',
  'alarm.monitor': 'Alarm monitoring',
  'alarm.settings': 'Alarm settings',
  'alarm.notifySettings': 'Notification settings',
  'alarm.contacts': 'Alert contacts',
  'alarm.notifyTemplates': 'Notification templates',
  'alarm.notifyConfigs': 'Notification configurations',
  'alarm.notifyRecords': 'Notification records',
  system: 'System management',
  'system.user': 'Users',
  'system.role': 'Roles',
  'system.dept': 'Groups',
  'system.menu': 'Menus',
  'system.app': 'Apps and keys',
  'system.dict': 'Dictionaries',
  'system.settings': 'System settings',
  'system.log': 'Operation log',
  'system.audit': 'Audit trail',
  'system.tenant': 'Tenant audit',
  'system.task': 'Tasks',
  'system.resource': 'Resources',
  'system.mqtt': 'MQTT',
  'system.file': 'File management',
  producttest: 'Product test',
  'producttest.config': 'Test configuration',
  'producttest.production': 'Production test',
  'producttest.ptReport': 'Test reports',
  'producttest.quality': 'Quality test',
  'producttest.qcReport': 'Quality reports',
  'producttest.batch': 'Batches',
  'producttest.iccid': 'ICCID',
  'producttest.binding': 'User binding',
  forward: 'Forwarding',
  'forward.mqttServer': 'MQTT services',
  'forward.httpServer': 'HTTP services',
  'forward.rules': 'Forwarding rules',
  'forward.mqttUser': 'MQTT users',
  'forward.mqttTopic': 'MQTT topics',
};
const englishEntries: Record<string, string> = {
  list: 'Query',
  add: 'Add',
  edit: 'Edit',
  delete: 'Delete',
  resetPwd: 'Reset password',
  grant: 'Grant menus',
  secret: 'Reset secret',
  export: 'Export',
  audit: 'Audit',
  import: 'Import',
  history: 'Change history',
  command: 'Send command',
  publish: 'Publish',
  apply: 'Apply',
  ack: 'Acknowledge',
  process: 'Process',
  clear: 'Clear',
  ticket: 'Work order',
  read: 'Mark read',
  retry: 'Send again',
  test: 'Connection test',
  dead: 'Dead letters',
  deadDelete: 'Delete dead letters',
  runNow: 'Run now',
  enable: 'Enable or stop',
  result: 'Results',
  field: 'Field definitions',
  subscribe: 'Subscribe',
  revoke: 'Revoke subscription',
  share: 'Share links',
  data: 'Data endpoint',
  run: 'Switch running version',
  ptTest: 'Test',
  report: 'Generate report',
  submit: 'Submit',
  return: 'Return',
  upgrade: 'Upgrade',
  sn: 'Set SN',
  operation: 'Operation records',
  operationExport: 'Export operation records',
  qcTest: 'Quality test',
  finish: 'Finish',
  bind: 'Bind',
  unbind: 'Unbind',
  invoke: 'Run now',
  debug: 'Node debug',
  replay: 'Replay message',
  pause: 'Pause or resume',
  upload: 'Upload',
  disconnect: 'Disconnect',
  download: 'Download',
  dashboard: 'Dashboard',
  cancel: 'Cancel',
  restart: 'Restart tasks',
  element: 'Topo elements',
  price: 'Price schedules',
};

/** A built-in entry's English title, or undefined for entries an administrator added. */
export function englishTitleOf(menu: { id: string; type: string }): string | undefined {
  if (menu.type === 'button' || menu.type === 'interface') return englishEntries[menu.id.split('.').at(-1) ?? ''];
  return englishAreasAndScreens[menu.id];
}

/** The built-in Chinese names by id, to tell an entry an administrator renamed from an untouched one. */
export const builtinNames: ReadonlyMap<string, string> = new Map(builtinMenus.map((m) => [m.id, m.name]));
