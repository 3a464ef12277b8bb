import type { Lang } from '../errors.ts';

/** What a refused value's reason reads in Chinese (ingest/src/validate.ts names three). */
const valueReasons: Record<string, string> = {
  'unknown identifier': '未知标识符',
  'not a property': '不是属性',
  'wrong type or out of range': '类型不符或超出范围',
};

/**
 * The intake's reasons for a dead letter (ingest/ writes them in English, once, as the message arrives), as the
 * reader reads them: in Chinese, each reason the intake gives; in English, as written.
 */
const zhReasons: Array<[RegExp, (...parts: string[]) => string]> = [
  [/^ts out of range$/, () => '时间戳超出范围（2000 年至服务器时间后一天）'],
  [/^expected 1 to 1000 samples$/, () => '每条消息应有 1 至 1000 个样本'],
  [/^a sample is an object$/, () => '样本应为对象'],
  [/^values is an object$/, () => 'values 应为对象'],
  [/^a gateway message is an object keyed by sub-device$/, () => '网关消息应为以子设备为键的对象'],
  [/^not JSON$/, () => '不是 JSON'],
  [/^payload over (\d+) bytes$/, (n) => `消息超过 ${n} 字节`],
  [/^payload too large$/, () => '消息过大'],
  [/^unknown topic$/, () => '未知主题'],
  [/^unknown or disabled device$/, () => '设备不存在或已禁用'],
  [/^not a gateway$/, () => '不是网关'],
  [/^(.+) is not a sub-device of this gateway$/, (sn) => `${sn} 不是该网关的子设备`],
  [/^not a sub-device reply$/, () => '不是子设备的回复'],
  [/^not a gateway RPC reply$/, () => '不是网关的 RPC 回复'],
  [/^ThingsBoard requests are answered on the embedded broker only$/, () => 'ThingsBoard 请求只在内置 MQTT 代理上应答'],
  [/^attribute keys are .+$/, () => '属性键应为逗号分隔的字符串或字符串数组'],
  [/^an RPC request is .+$/, () => 'RPC 请求应为 {"method", "params"}'],
  [/^an attribute request is .+$/, () => '属性请求应为 {"clientKeys", "sharedKeys"}'],
  [/^a gateway attribute request is .+$/, () => '网关属性请求应为 {"id", "device", "client", "keys"}'],
  [/^a gateway attribute request names its keys$/, () => '网关属性请求须给出键'],
  [
    /^refused values: (.+)$/,
    (list) =>
      `拒收的值：${list
        .split(', ')
        .map((item) => item.replace(/ ?\(([^)]+)\)$/, (whole, reason: string) => `（${valueReasons[reason] ?? reason}）`))
        .join('，')}`,
  ],
];

export function deadLetterReasonText(reason: string, lang: Lang): string {
  if (lang === 'en') return reason;
  for (const [pattern, text] of zhReasons) {
    const match = pattern.exec(reason);
    if (match) return text(...match.slice(1));
  }
  return reason;
}
