import type { Lang } from '../errors.ts';

/**
 * Why a row of a device import was refused, kept without language (the fault table holds it as JSON) and told
 * in the language of whoever reads the report: a reason made by the server follows its reader, not its writer.
 */
export type ImportFaultReason =
  | { code: 'required' }
  | { code: 'productUnknown'; value: string }
  | { code: 'groupUnknown'; value: string }
  | { code: 'gatewayUnknown'; value: string }
  | { code: 'notGateway'; value: string }
  | { code: 'notNumber' }
  | { code: 'tooLong'; max: number }
  | { code: 'outOfRange' }
  | { code: 'invalid' }
  | { code: 'repeats'; row: number }
  | { code: 'snTaken' }
  | { code: 'notSaved' };

const texts: Record<Lang, Record<ImportFaultReason['code'], string>> = {
  zh: {
    required: '必填',
    productUnknown: '没有编码或名称为“{value}”的产品',
    groupUnknown: '没有名为“{value}”的分组',
    gatewayUnknown: '没有序列号为“{value}”的网关',
    notGateway: '“{value}”不是网关',
    notNumber: '不是有效的数字',
    tooLong: '过长（最多 {max} 个字符）',
    outOfRange: '超出允许的范围',
    invalid: '格式不正确',
    repeats: '与第 {row} 行的序列号重复',
    snTaken: '序列号已被占用',
    notSaved: '未能保存，请重新导入该行',
  },
  en: {
    required: 'Required',
    productUnknown: 'No product with the code or name “{value}”',
    groupUnknown: 'No group named “{value}”',
    gatewayUnknown: 'No gateway with the serial number “{value}”',
    notGateway: '“{value}” is not a gateway',
    notNumber: 'Not a valid number',
    tooLong: 'Too long (at most {max} characters)',
    outOfRange: 'Out of the allowed range',
    invalid: 'Not valid',
    repeats: 'Repeats the serial number of row {row}',
    snTaken: 'The serial number is taken',
    notSaved: 'Not saved: import the row again',
  },
};

/** What the fault table keeps. */
export const storedImportFault = (reason: ImportFaultReason): string => JSON.stringify(reason);

/** A kept reason in a language; a reason kept as text before reasons had codes is shown as it was. */
export function importFaultText(stored: string, lang: Lang): string {
  let reason: ImportFaultReason;
  try {
    reason = JSON.parse(stored) as ImportFaultReason;
  } catch {
    return stored === 'SN_TAKEN' ? texts[lang].snTaken : stored;
  }
  const text = texts[lang][reason.code];
  if (!text) return stored;
  return text.replace(/\{(\w+)\}/g, (hole, name: string) => String((reason as Record<string, unknown>)[name] ?? hole));
}

/** A refused field of a row as the contract's schema saw it (a zod issue) and as the file had it, as a reason without language. */
export function importFaultOfIssue(
  issue: { code: string; origin?: unknown; expected?: unknown; maximum?: unknown; minimum?: unknown },
  entered: string | undefined,
): ImportFaultReason {
  if (entered === undefined || entered.trim() === '') return { code: 'required' };
  if (issue.code === 'invalid_type' && issue.expected === 'number') return { code: 'notNumber' };
  if (issue.code === 'too_big' && issue.origin === 'string') return { code: 'tooLong', max: Number(issue.maximum) };
  if (issue.code === 'too_big' || issue.code === 'too_small') return { code: 'outOfRange' };
  return { code: 'invalid' };
}

/** The import report's columns (row, serial number, field, reason), headed in the reader's language. */
export const importReportHeaders: Record<Lang, readonly string[]> = {
  zh: ['行号', '序列号', '字段', '原因'],
  en: ['Row', 'Serial number', 'Field', 'Reason'],
};
