/** Business constants and limits of spec §9, shared by server and browser. */
export const REQUEST_TIMEOUT_MS = 90_000;
export const NOTICE_MS = 3_000;
export const THEME_COLOUR = '#2E68EA';
export const DEFAULT_LANG = 'zh' as const;
export const PRODUCT_VERSION = '2.0.12';
export const TOKEN_COOKIE = 'token';

export const limits = {
  password: { min: 6, max: 16 },
  tenantName: { min: 3, max: 64 },
  username: { min: 3, max: 64 },
  verificationCodeLength: 6,
  contactName: { max: 20 },
  menuName: { max: 10 },
  port: { max: 65_535 },
  logo: { maxBytes: 2 * 1024 * 1024, height: 30, mime: 'image/png' },
  manualAlarmEntries: 10,
} as const;

export const alarmLevels = [1, 2, 3, 4, 5] as const;
export const alarmModes = ['crossUpper', 'crossLower', 'crossBoth', 'equal', 'event'] as const;
export const alarmTypes = ['device', 'cloud'] as const;
export const alarmTriggers = ['first', 'every', 'manual'] as const;
export const alarmPush = ['firstTime', 'interval'] as const;
export const comparisonOperators = ['gt', 'gte', 'eq', 'lt', 'lte'] as const;

export const statCycles = ['10m', '30m', '1h', '12h', '1d', '1w', '1M'] as const;
export const statTypes = ['history', 'avg', 'sum', 'diff', 'max', 'min', 'start', 'end', 'count', 'distinctCount'] as const;
export const statDataTypes = ['deviceData', 'deviceAttribute', 'alarm'] as const;

export const notifySendWays = ['sms', 'email', 'inApp'] as const;
export const notifyTypes = ['sms', 'email', 'wechat'] as const;
export const notifySources = ['alarm', 'userAction', 'systemTask'] as const;

export const sceneTriggers = ['timing', 'device', 'invoke'] as const;
export const fileTypes = ['upgrade', 'configuration', 'patch', 'common', 'logo'] as const;
export const fileTaskStatuses = ['nonExecution', 'executing', 'fail', 'cancel', 'success', 'pause'] as const;

export const groupTypes = [
  'powerRoom',
  'office',
  'computerRoom',
  'meeting',
  'garage',
  'project',
  'powerStation',
  'institution',
  'site',
] as const;

export const mqttAccess = ['subscribe', 'publish', 'both'] as const;
export const reportSaveModes = ['none', 'reportOnly', 'saveOnly', 'both'] as const;
export const reportStrategies = ['change', 'periodic'] as const;

/** Day chart axis: 15-minute slots, 96 a day. */
export const DAY_SLOTS = 96;
export const DATE_FORMAT = 'YYYY-MM-DD';
