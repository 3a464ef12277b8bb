import type { Lang } from '../errors.ts';

/**
 * The storm summary the delivery worker writes when the caps held notifications back (projections/src/alarm/outbox.ts
 * writes it once, in both languages), as its reader reads it: in their language only.
 */
const SUBJECT = /^告警风暴 Alarm storm: (\d+) more$/;
const BODY = /^(\d+) 条告警通知因频率上限未逐条发送 \/ \d+ alarm notifications were held back by the rate cap in the minute from (.+)$/;

const texts: Record<Lang, { subject: (n: string) => string; body: (n: string, minute: string) => string }> = {
  zh: {
    subject: (n) => `告警风暴：另有 ${n} 条`,
    body: (n, minute) => `${minute} 这一分钟内有 ${n} 条告警通知因频率上限未逐条发送`,
  },
  en: {
    subject: (n) => `Alarm storm: ${n} more`,
    body: (n, minute) => `${n} alarm notifications were held back by the rate cap in the minute from ${minute}`,
  },
};

export function stormSummaryText(record: { subject: string; body: string }, lang: Lang): { subject: string; body: string } {
  const subject = SUBJECT.exec(record.subject);
  const body = BODY.exec(record.body);
  return {
    subject: subject ? texts[lang].subject(subject[1]!) : record.subject,
    body: body ? texts[lang].body(body[1]!, body[2]!) : record.body,
  };
}
