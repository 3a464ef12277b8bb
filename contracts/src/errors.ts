/**
 * Stable error codes with their zh/en messages (spec §8). The code is what clients switch on;
 * the message is shown to people in the caller's language.
 */
export const errorCatalogue = {
  OK: { status: 200, zh: '操作成功', en: 'Operation succeeded' },
  VALIDATION: { status: 400, zh: '请完善必填项', en: 'Please complete the required fields' },
  BAD_JSON: { status: 400, zh: '请求体不是合法的 JSON', en: 'The request body is not valid JSON' },
  HEADERS_TOO_LARGE: { status: 431, zh: '请求头过大', en: 'The request headers are too large' },
  BODY_TOO_LARGE: { status: 400, zh: '请求体过大（最大 1MB）', en: 'The request body is too large (at most 1 MB)' },
  BODY_TOO_DEEP: { status: 400, zh: '请求体嵌套过深（最多 32 层）', en: 'The request body is nested too deeply (at most 32 levels)' },
  // Why a value was refused: named by a field of a VALIDATION answer, its message the answer's `msg`.
  TEXT_UNSTORABLE: {
    status: 400,
    zh: '文本含有无法保存的字符（NUL 或不成对的代理项）',
    en: 'The text holds a character that cannot be stored (a NUL or an unpaired surrogate)',
  },
  TIME_INVALID: {
    status: 400,
    zh: '时间格式有误：须为 ISO 8601 且带时区（偏移在 ±15:59 以内）',
    en: 'Invalid time: ISO 8601 with an offset within ±15:59',
  },
  TIME_ZONE_UNKNOWN: {
    status: 400,
    zh: '未知的时区（应为 Asia/Shanghai 这样的名称）',
    en: 'Unknown time zone (a name such as Asia/Shanghai)',
  },
  UNAUTHENTICATED: { status: 401, zh: '请先登录', en: 'Please log in' },
  FORBIDDEN: { status: 403, zh: '没有权限', en: 'Permission denied' },
  NOT_FOUND: { status: 404, zh: '记录不存在', en: 'Record not found' },
  CONFLICT: { status: 409, zh: '数据已被他人修改，请刷新后重试', en: 'The record was changed by someone else, refresh and retry' },
  RATE_LIMITED: { status: 429, zh: '操作过于频繁，请稍后再试', en: 'Too many attempts, try again later' },
  INTERNAL: { status: 500, zh: '服务器繁忙，请稍后再试', en: 'server busy, try again later' },
  LOGIN_FAILED: { status: 400, zh: '用户名或密码错误', en: 'Username or password incorrect' },
  AGREEMENT_REQUIRED: { status: 400, zh: '请阅读并同意用户协议', en: 'Please read and accept the user agreement' },
  ACCOUNT_STOPPED: { status: 403, zh: '账号已停用', en: 'The account is stopped' },
  TENANT_STOPPED: { status: 403, zh: '租户已停用', en: 'The tenant is stopped' },
  TENANT_NAME_TAKEN: { status: 400, zh: '租户名称已存在', en: 'Tenant name already exists' },
  CODE_INVALID: { status: 400, zh: '验证码错误或已过期', en: 'The verification code is wrong or expired' },
  CODE_TOO_SOON: { status: 429, zh: '验证码发送过于频繁，请稍后再试', en: 'A code was sent recently, wait before asking again' },
  REGISTRATION_UNDER_REVIEW: {
    status: 403,
    zh: '租户注册正在审核中，请等待审核结果',
    en: 'Your registration is under review: you can log in once it is approved',
  },
  REGISTRATION_REJECTED: { status: 403, zh: '租户注册未通过审核', en: 'Your registration was not approved' },
  REGISTRATION_NOT_PENDING: { status: 400, zh: '该申请已审核', en: 'This registration has already been audited' },
  ROLE_EXISTS: { status: 400, zh: '角色已存在', en: 'Role already exists' },
  USERNAME_TAKEN: { status: 400, zh: '用户名已存在', en: 'Username already exists' },
  EMAIL_TAKEN: { status: 400, zh: '邮箱已被使用', en: 'Email already in use' },
  PHONE_TAKEN: { status: 400, zh: '手机号已被使用', en: 'Phone number already in use' },
  PASSWORD_WRONG: { status: 400, zh: '原密码错误', en: 'The old password is wrong' },
  ROOT_GROUP_FORBIDDEN: {
    status: 400,
    zh: '非管理员不能创建或删除根分组，请选择父级或子级分组',
    en: 'Only the root user can create or delete the root group: pick a parent or child group',
  },
  LOGO_TOO_LARGE: { status: 400, zh: '上传图片大小不能超过 2MB!', en: 'The size of the uploaded picture cannot exceed 2MB!' },
  LOGO_NOT_PNG: { status: 400, zh: '只能上传 PNG 图片', en: 'Only PNG pictures can be uploaded' },
  ALARM_ENTRY_LIMIT: { status: 400, zh: '最多只能新增10条数据', en: 'Only 10 new data can be added at most' },
  SELECT_RECORD: { status: 400, zh: '请选择一条记录', en: 'Please select a record' },
  GROUP_HAS_CHILDREN: { status: 400, zh: '请先删除子分组', en: 'Delete the child groups first' },
  GROUP_IN_USE: { status: 400, zh: '该分组下还有用户或设备', en: 'The group still has users or devices' },
  MENU_HAS_CHILDREN: { status: 400, zh: '请先删除子菜单', en: 'Delete the child menu entries first' },
  BUILTIN_ROLE: { status: 400, zh: '内置角色不能删除', en: 'Built-in roles cannot be deleted' },
  ROLE_IN_USE: { status: 400, zh: '该角色已分配给用户', en: 'The role is assigned to users' },
  ADMIN_PROTECTED: { status: 403, zh: '不能停用或删除管理员', en: 'The administrator cannot be stopped or deleted' },
  APP_AUTH_FAILED: { status: 400, zh: '应用密钥错误', en: 'App key or secret incorrect' },
  DICT_CODE_TAKEN: { status: 400, zh: '字典编码已存在', en: 'Dictionary code already exists' },
  OTA_FILE_UNFIT: {
    status: 400,
    zh: '请选择升级包（升级、补丁或配置文件）',
    en: 'Pick an upgrade package (an upgrade, patch or configuration file)',
  },
  OTA_NO_DEVICES: { status: 400, zh: '没有符合条件的设备', en: 'No device matches the target' },
  OTA_LINK_EXPIRED: { status: 401, zh: '下载链接已过期', en: 'The download link has expired' },
  OTA_LINK_INVALID: { status: 403, zh: '下载链接无效', en: 'The download link is not valid' },
  SCREEN_LINK_EXPIRED: { status: 401, zh: '大屏分享链接已过期', en: 'The screen link has expired' },
  SCREEN_LINK_INVALID: { status: 403, zh: '大屏分享链接无效或已撤销', en: 'The screen link is not valid or was revoked' },
  SCREEN_SHARE_LIMIT: {
    status: 400,
    zh: '该大屏的有效分享链接过多，请先撤销一些',
    en: 'This screen has too many live share links: revoke some first',
  },
  OTA_TASK_STATE: { status: 400, zh: '任务当前状态不允许此操作', en: 'The task cannot do this in its current status' },
  RESTART_EXPIRY: { status: 400, zh: '过期时间必须晚于任务时间', en: 'The expiry must be later than the task time' },
  NOT_A_SITE: { status: 400, zh: '所选分组不是站点、电站或项目', en: 'The group is not a site, power station or project' },
  FIELD_UNKNOWN: { status: 400, zh: '自定义字段未定义', en: 'No such custom field is defined' },
  FIELD_TYPE: { status: 400, zh: '自定义字段的值与其类型不符', en: "A custom field's value does not fit its type" },
  FIELD_REQUIRED: { status: 400, zh: '必填的自定义字段未填写', en: 'A required custom field is empty' },
  FIELD_LIMIT: { status: 400, zh: '自定义字段最多50个', en: 'At most 50 custom fields can be defined' },
  STAT_TYPE_UNFIT: {
    status: 400,
    zh: '告警统计只能选择计数或去重计数',
    en: 'An alarm statistic counts alarms: pick count or distinct count',
  },
  REPORT_TOO_LARGE: {
    status: 400,
    zh: '报表过大：请缩短时间范围、加大周期或减少设备',
    en: 'The report is too large: shorten the range, widen the cycle or pick fewer devices',
  },
  NOT_SUBSCRIBED: {
    status: 403,
    zh: '该应用未订阅此数据集，或订阅已被撤销',
    en: 'The app does not subscribe to this data set, or its subscription was revoked',
  },
  APP_NAME_TAKEN: { status: 400, zh: '应用名称已存在', en: 'App name already exists' },
  DICT_VALUE_TAKEN: { status: 400, zh: '字典值已存在', en: 'Dictionary value already exists' },
  SCOPE_EXCEEDED: { status: 403, zh: '不能授予自己没有的权限', en: 'You cannot grant permissions you do not hold' },
  SN_TAKEN: { status: 400, zh: '设备序列号已存在', en: 'Serial number already exists' },
  PRODUCT_CODE_TAKEN: { status: 400, zh: '产品编码已存在', en: 'Product code already exists' },
  PRODUCT_PUBLISHED: {
    status: 400,
    zh: '产品已发布，物模型只能通过发布新版本修改',
    en: 'The product is published: its thing model changes only by publishing a new version',
  },
  PRODUCT_NOT_PUBLISHED: { status: 400, zh: '产品尚未发布', en: 'The product is not published' },
  PRODUCT_IN_USE: { status: 400, zh: '该产品下还有设备', en: 'The product still has devices' },
  IDENTIFIER_TAKEN: { status: 400, zh: '标识符已存在', en: 'Identifier already exists' },
  MODEL_INVALID: { status: 400, zh: '物模型文件有误', en: 'The thing-model file has faults' },
  NOT_A_PROPERTY: {
    status: 400,
    zh: '变量标识符必须是产品物模型中的属性',
    en: "A variable's identifier must name a property of the product's thing model",
  },
  NOT_A_GATEWAY: { status: 400, zh: '所选设备不是网关', en: 'The chosen device is not a gateway' },
  GATEWAY_HAS_DEVICES: { status: 400, zh: '网关下还有子设备', en: 'The gateway still has sub-devices' },
  TEMPLATE_PRODUCT_MISMATCH: { status: 400, zh: '模板不属于该设备的产品', en: "The template is not for the device's product" },
  FILE_TYPE: { status: 400, zh: '只能上传 CSV 或 XLSX 文件', en: 'Only CSV or XLSX files can be uploaded' },
  FILE_EMPTY: { status: 400, zh: '文件为空', en: 'The file is empty' },
  FILE_TOO_LARGE: { status: 413, zh: '文件不能超过 50MB', en: 'The file cannot exceed 50 MB' },
  FILE_COLUMNS: { status: 400, zh: '文件缺少必填列', en: 'The file lacks required columns' },
  FILE_ROW_INVALID: {
    status: 400,
    zh: '文件第 {row} 行无法读取（引号不成对或含有二进制内容），该行及其后的行未导入',
    en: 'Row {row} of the file cannot be read (an unmatched quote or binary content); it and the rows after it were not imported',
  },
  FILE_INFLATED_TOO_LARGE: {
    status: 413,
    zh: 'XLSX 文件解压后过大或压缩比异常',
    en: 'The XLSX file inflates too large, or is compressed beyond any spreadsheet',
  },
  QUERY_INCOMPLETE: { status: 400, zh: '请完善查询条件', en: 'Please complete the query conditions' },
  DEVICE_AUTH_FAILED: { status: 401, zh: '设备认证失败', en: 'Device authentication failed' },
  TELEMETRY_INVALID: {
    status: 400,
    zh: '上报数据有误：每次 1 至 1000 个样本，时间在 2000 年至服务器时间后一天之间',
    en: 'Invalid readings: 1 to 1000 samples, each timed between 2000 and a day ahead of the server',
  },
  DEVICE_DISABLED: { status: 400, zh: '设备已禁用', en: 'The device is disabled' },
  COMMAND_INVALID: { status: 400, zh: '指令与物模型不符', en: "The command does not fit the device's thing model" },
  JOB_RUNNING: { status: 409, zh: '该导入任务已在进行', en: 'This import is already running' },
  ALARM_INCOMPLETE: {
    status: 400,
    zh: '信息不完整，是否继续提交？',
    en: 'The information is incomplete. Continue submitting?',
  },
  ALARM_NOT_ACTIVE: { status: 400, zh: '告警已清除', en: 'The alarm is already cleared' },
  TEMPLATE_CODE_TAKEN: { status: 400, zh: '模板ID已存在', en: 'Template ID already exists' },
  TEMPLATE_IN_USE: { status: 400, zh: '模板正被通知配置使用', en: 'The template is used by a notification configuration' },
  OUTBOUND_URL_REFUSED: {
    status: 400,
    zh: '该地址不允许：不能使用本机、内网、链路本地或保留地址',
    en: 'This address is not allowed: no loopback, internal, link-local or reserved address',
  },
  MQTT_ADD_FAILED: { status: 400, zh: 'MQTT新增失败：名称已存在', en: 'MQTT add failed: the name is already in use' },
  MQTT_EDIT_FAILED: { status: 400, zh: 'MQTT修改失败：名称已存在', en: 'MQTT edit failed: the name is already in use' },
  SERVER_NAME_TAKEN: { status: 400, zh: '服务名称已存在', en: 'The server name is already in use' },
  SERVER_IN_USE: { status: 400, zh: '该服务正被转发规则使用', en: 'A forwarding rule sends to this server' },
  LOCAL_PORT_IN_USE: { status: 400, zh: '本地端口不能被占用', en: 'Local port should not be in use' },
  SCENE_CRON_INVALID: {
    status: 400,
    zh: 'Cron 表达式有误（5 段，或秒在前的 6 段）',
    en: 'Invalid cron expression (5 fields, or 6 with seconds first)',
  },
  SCENE_STOPPED: { status: 400, zh: '场景已停用，请先启用', en: 'The scene is stopped: enable it first' },
  SCENE_NOT_INVOKABLE: { status: 400, zh: '该场景没有手动触发', en: 'The scene has no invoke trigger' },
  SCENE_SELF: { status: 400, zh: '场景不能启停自身', en: 'A scene cannot enable or stop itself' },
  RULE_CHAIN_ROOT: { status: 400, zh: '根规则链不能删除', en: 'The root rule chain cannot be deleted' },
  FILE_UPLOAD_TOO_LARGE: { status: 413, zh: '文件不能超过 {maxMb}MB', en: 'The file cannot exceed {maxMb} MB' },
  FILE_QUOTA_EXCEEDED: {
    status: 413,
    zh: '存储空间不足：配额 {quotaMb}MB，已用 {usedMb}MB',
    en: 'Not enough storage: the quota is {quotaMb} MB and {usedMb} MB are used',
  },
  FILE_IN_USE: { status: 400, zh: '该文件正被运行中的任务使用，不能删除', en: 'A running task uses this file; it cannot be deleted' },
  FILE_TYPE_UNFIT: {
    status: 400,
    zh: '文件类型不适用：升级任务只能选择升级、补丁或配置文件',
    en: 'Wrong file type: a rollout sends only upgrade, patch or configuration files',
  },
  RANGE_NOT_SATISFIABLE: { status: 416, zh: '请求的字节范围超出文件大小', en: 'The requested byte range is beyond the end of the file' },
  PT_STEP_REFUSED: {
    status: 409,
    zh: '设备当前的测试状态（{status}）不允许该步骤',
    en: 'This step is not allowed while the device’s test status is {status}',
  },
  PT_TEST_FAILED: { status: 400, zh: '测试未通过，不能提交；请重新测试', en: 'The test did not pass: it cannot be submitted; test again' },
  PT_NOT_BOUND: { status: 403, zh: '您未绑定该测试配置', en: 'You are not bound to this test configuration' },
  PT_NOT_QC_TESTER: {
    status: 403,
    zh: '只有该配置的质检员可以进行质量测试',
    en: 'Only the configuration’s QC tester can run the quality test',
  },
  PT_PRODUCT_MISMATCH: { status: 400, zh: '该设备不属于测试配置的产品', en: 'The device is not of the configuration’s product' },
  PT_UPGRADE_PACKAGE: { status: 400, zh: '请选择升级包', en: 'Pick an upgrade package' },
  PT_ICCID_EXISTS: { status: 400, zh: 'ICCID已存在', en: 'The ICCID already exists' },
  PT_ICCID_IN_USE: { status: 400, zh: '该ICCID已绑定设备', en: 'The ICCID is paired with a device' },
  PT_ICCID_REQUIRED: { status: 400, zh: '该配置需要绑定ICCID', en: 'This configuration pairs each device with an ICCID: give one' },
  PT_ICCID_UNKNOWN: { status: 400, zh: 'ICCID未导入或已被使用', en: 'The ICCID is not imported, or is paired already' },
  DIAGRAM_BINDING_INVALID: {
    status: 400,
    zh: '组态元件 {widget} 绑定的 {identifier} 不在设备的物模型中',
    en: "Widget {widget} is bound to {identifier}, which is not in the device's thing model",
  },
  TOPO_ELEMENT_IN_USE: {
    status: 400,
    zh: '该图元正被组态图使用，无法删除：{diagrams}',
    en: 'The topo element is placed in diagrams and cannot be deleted: {diagrams}',
  },
  TOPO_ELEMENT_NAME_TAKEN: { status: 400, zh: '图元名称已存在', en: 'A topo element with this name already exists' },
  PRICE_PERIODS_OVERLAP: { status: 400, zh: '电价时段有重叠', en: 'The price periods overlap' },
  PRICE_PERIODS_GAP: { status: 400, zh: '电价时段须覆盖全天', en: 'The price periods must cover the whole day' },
  PRICE_MISSING: { status: 400, zh: '所用时段类型缺少电价', en: 'A period kind in use has no price' },
  PRICE_SCHEDULE_EXISTS: { status: 409, zh: '该电站已有电价方案', en: 'This station already has a price schedule' },
  NOT_A_STATION: { status: 400, zh: '所选分组不是电站或站点', en: 'The group is not a power station or site' },
  MQTT_USERNAME_IS_DEVICE: {
    status: 400,
    zh: 'MQTT新增失败：用户名已是设备序列号',
    en: "MQTT add failed: the username is a device's serial number",
  },
} as const;

export type ErrorCode = keyof typeof errorCatalogue;
export type Lang = 'zh' | 'en';

/** The message of a code in a language; `{name}` in it is filled from `details` (the row of a file, ...). */
export const messageOf = (code: ErrorCode, lang: Lang, details?: unknown): string =>
  errorCatalogue[code][lang].replace(/\{(\w+)\}/g, (hole, name: string) => {
    const value = details && typeof details === 'object' ? (details as Record<string, unknown>)[name] : undefined;
    return typeof value === 'string' || typeof value === 'number' ? String(value) : hole;
  });
/** Whether a text names an entry of the catalogue (a schema's refusal may name one, for its message). */
export const isErrorCode = (text: unknown): text is ErrorCode => typeof text === 'string' && Object.hasOwn(errorCatalogue, text);

/** A domain rule was broken; the API turns it into the envelope with the catalogue's message. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly details?: unknown,
  ) {
    super(code);
    this.name = 'DomainError';
  }
}
