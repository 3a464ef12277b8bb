import { describe, expect, it } from 'vitest';
import { alarmLevelName, templateLanguage } from './level-names.ts';

describe("an alarm's level in a notification", () => {
  it('is named in the language of the template, once', () => {
    expect(alarmLevelName(4, templateLanguage('【{{level}}】{{device}} {{rule}}'))).toBe('重要');
    expect(alarmLevelName(4, templateLanguage('Alarm on {{device}}: {{level}}'))).toBe('major');
    expect(alarmLevelName(9, 'zh')).toBe('9');
  });
});
