/**
 * The names an alarm's placeholders take in a notification ({{level}}, {{status}}): in the language the tenant
 * wrote the template in (a template with Chinese in it reads Chinese names), never both at once (重要 major).
 */
export type TemplateLanguage = 'zh' | 'en';

export const templateLanguage = (text: string): TemplateLanguage => (/[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]/.test(text) ? 'zh' : 'en');

const levelNames: Record<TemplateLanguage, readonly string[]> = {
  zh: ['', '轻微', '次要', '一般', '重要', '严重'],
  en: ['', 'minor', 'low', 'normal', 'major', 'severe'],
};
const statusNames: Record<TemplateLanguage, Record<'active', string>> = { zh: { active: '告警中' }, en: { active: 'active' } };

export const alarmLevelName = (level: number, lang: TemplateLanguage): string => levelNames[lang][level] ?? String(level);
export const alarmStatusName = (status: 'active', lang: TemplateLanguage): string => statusNames[lang][status];
