import type { templateVariables } from './model.ts';

export type TemplateValues = Partial<Record<(typeof templateVariables)[number], string | number | null>>;

/** Fills `{{name}}` placeholders; an absent value shows as '--' (spec §9: empty shows '--'). */
export function renderTemplate(content: string, values: TemplateValues): string {
  return content.replace(/\{\{\s*([^}\s]*)\s*\}\}/g, (_, name: string) => {
    const value = Object.hasOwn(values, name) ? values[name as keyof TemplateValues] : null;
    return value === null || value === undefined || value === '' ? '--' : String(value);
  });
}

/** What a preview fills a template with. */
export const sampleValues: TemplateValues = {
  device: '1号配电柜',
  sn: 'SN-000001',
  variable: 'temperature',
  value: 86.5,
  level: 4,
  time: '2026-05-03 14:02:00',
  cause: '温度超过上限',
  suggestion: '检查散热风扇',
  rule: '温度过高',
  status: 'active',
};
