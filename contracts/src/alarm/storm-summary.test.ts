import { describe, expect, it } from 'vitest';
import { stormSummaryText } from './storm-summary.ts';

describe('the storm summary in its reader’s language', () => {
  const written = {
    subject: '告警风暴 Alarm storm: 12 more',
    body: '12 条告警通知因频率上限未逐条发送 / 12 alarm notifications were held back by the rate cap in the minute from 2026-05-03 14:02',
  };
  it('reads in one language only', () => {
    expect(stormSummaryText(written, 'zh')).toEqual({
      subject: '告警风暴：另有 12 条',
      body: '2026-05-03 14:02 这一分钟内有 12 条告警通知因频率上限未逐条发送',
    });
    expect(stormSummaryText(written, 'en')).toEqual({
      subject: 'Alarm storm: 12 more',
      body: '12 alarm notifications were held back by the rate cap in the minute from 2026-05-03 14:02',
    });
  });
  it('leaves any other record as written', () => {
    expect(stormSummaryText({ subject: 'Alarm on pump', body: 'x' }, 'zh')).toEqual({ subject: 'Alarm on pump', body: 'x' });
  });
});
