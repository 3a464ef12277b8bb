import './i18n.ts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Badge, Button, Card, Checkbox, Code, DataList, Flex, Grid, Heading, Text, TextField } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { alarmPerm, notifySecretKeys, type NotifySettingsAnswer } from '@iot/contracts';
import { callRoute } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { useRecordDialog } from '../ui/crud.tsx';
import { Field, FormDialog, checkBody } from '../ui/form.tsx';
import { Loading } from '../ui/Loading.tsx';
import { SelectInput } from '../ui/widgets.tsx';
import { DateTimeInput } from '../ui/DateTimeInput.tsx';

const SETTINGS = 'notifySettings';
const plainKeys = ['smtpFrom', 'smsEndpoint', 'smsSignName', 'smsTemplateCode'] as const;
const empty = {
  smtpFrom: '',
  smsEndpoint: '',
  smsSignName: '',
  smsTemplateCode: '',
  tenantPerMinute: '',
  contactPerMinute: '',
  quiet: false,
  quietStart: '22:00',
  quietEnd: '07:00',
  quietMinLevel: '4',
  quietTimeZone: 'Asia/Shanghai',
  ...(Object.fromEntries(notifySecretKeys.map((k) => [k, ''])) as Record<(typeof notifySecretKeys)[number], string>),
  /** Credentials to remove. */
  remove: [] as string[],
};
type Values = typeof empty;

function valuesOf(s: NotifySettingsAnswer | null): Values {
  if (!s) return empty;
  const t = s.tenant;
  return {
    ...empty,
    smtpFrom: t.smtpFrom ?? '',
    smsEndpoint: t.smsEndpoint ?? '',
    smsSignName: t.smsSignName ?? '',
    smsTemplateCode: t.smsTemplateCode ?? '',
    tenantPerMinute: t.tenantPerMinute?.toString() ?? '',
    contactPerMinute: t.contactPerMinute?.toString() ?? '',
    quiet: !!t.quietHours,
    quietStart: t.quietHours?.start ?? empty.quietStart,
    quietEnd: t.quietHours?.end ?? empty.quietEnd,
    quietMinLevel: String(t.quietHours?.minLevel ?? 4),
    quietTimeZone: t.quietHours?.timeZone ?? empty.quietTimeZone,
  };
}

/** The tenant's own channels, caps and quiet hours; a credential is typed in, never shown back (empty keeps it). */
function SettingsDialog({ editing, onClose }: { editing: NotifySettingsAnswer | null; onClose: () => void }) {
  const { t } = useTranslation();
  const { form, run, done, dialog } = useRecordDialog<Values, NotifySettingsAnswer>({
    editing,
    empty,
    queryKey: SETTINGS,
    onClose,
    valuesOf,
  });
  const v = form.values;
  const stored = editing?.tenant.secrets;
  const submit = async () => {
    const body: Record<string, unknown> = {};
    for (const k of plainKeys) body[k] = v[k] || null;
    body.tenantPerMinute = v.tenantPerMinute ? Number(v.tenantPerMinute) : null;
    body.contactPerMinute = v.contactPerMinute ? Number(v.contactPerMinute) : null;
    body.quietHours = v.quiet
      ? { start: v.quietStart, end: v.quietEnd, minLevel: Number(v.quietMinLevel), timeZone: v.quietTimeZone }
      : null;
    for (const k of notifySecretKeys) {
      if (v.remove.includes(k)) body[k] = null;
      else if (v[k]) body[k] = v[k];
    }
    const checked = checkBody('notify.saveSettings', body, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute(checked.route, { body: checked.data });
      await done(t('common.saved'));
    });
  };
  const secret = (k: (typeof notifySecretKeys)[number]) => (
    <Field key={k} label={t(`notify.fields.${k}`)} error={form.errors[k]} hint={stored?.[k] ? t('notify.secretStored') : undefined}>
      <Flex gap="2" align="center">
        <TextField.Root
          style={{ flex: 1 }}
          name={k}
          type="password"
          autoComplete="off"
          value={v[k]}
          disabled={v.remove.includes(k)}
          placeholder={stored?.[k] ? '••••••' : ''}
          onChange={(e) => form.set(k, e.target.value)}
        />
        {stored?.[k] && (
          <Text as="label" size="1">
            <Flex gap="1" align="center">
              <Checkbox
                name={`remove-${k}`}
                checked={v.remove.includes(k)}
                onCheckedChange={(c) => form.set('remove', c === true ? [...v.remove, k] : v.remove.filter((r) => r !== k))}
              />
              {t('notify.removeSecret')}
            </Flex>
          </Text>
        )}
      </Flex>
    </Field>
  );
  const plain = (k: (typeof plainKeys)[number] | 'tenantPerMinute' | 'contactPerMinute') => (
    <Field key={k} label={t(`notify.fields.${k}`)} error={form.errors[k]}>
      <TextField.Root name={k} value={v[k]} onChange={(e) => form.set(k, e.target.value)} />
    </Field>
  );
  return (
    <FormDialog {...dialog} width="640px" title={t('notify.editSettings')} onSubmit={() => void submit()}>
      <Heading size="2">{t('notify.channelKinds.email')}</Heading>
      {secret('smtpUrl')}
      {plain('smtpFrom')}
      <Heading size="2">{t('notify.channelKinds.sms')}</Heading>
      {plain('smsEndpoint')}
      {secret('smsAccessKeyId')}
      {secret('smsAccessKeySecret')}
      {plain('smsSignName')}
      {plain('smsTemplateCode')}
      <Heading size="2">{t('notify.channelKinds.wechat')}</Heading>
      {secret('wecomWebhook')}
      <Heading size="2">{t('notify.channelKinds.dingtalk')}</Heading>
      {secret('dingtalkWebhook')}
      {secret('dingtalkSecret')}
      <Heading size="2">{t('notify.limits')}</Heading>
      <Text size="1" color="gray">
        {t('notify.platformDefault')}
      </Text>
      {plain('tenantPerMinute')}
      {plain('contactPerMinute')}
      <Heading size="2">{t('notify.quietHours')}</Heading>
      <Text as="label" size="2">
        <Flex gap="2" align="center">
          <Checkbox name="quiet" checked={v.quiet} onCheckedChange={(c) => form.set('quiet', c === true)} />
          {t('notify.quietEnabled')}
        </Flex>
      </Text>
      {v.quiet && (
        <Grid columns="2" gap="2">
          <Field label={t('notify.fields.quietStart')} error={form.errors.quietHours}>
            <DateTimeInput
              kind="time"
              name="quietStart"
              aria-label={t('notify.fields.quietStart')}
              value={v.quietStart}
              onChange={(x) => form.set('quietStart', x)}
            />
          </Field>
          <Field label={t('notify.fields.quietEnd')}>
            <DateTimeInput
              kind="time"
              name="quietEnd"
              aria-label={t('notify.fields.quietEnd')}
              value={v.quietEnd}
              onChange={(x) => form.set('quietEnd', x)}
            />
          </Field>
          <Field label={t('notify.fields.quietMinLevel')}>
            <SelectInput
              {...form.select('quietMinLevel')}
              options={[1, 2, 3, 4, 5].map((l) => ({ value: String(l), label: t(`alarm.levels.${l}`) }))}
            />
          </Field>
          <Field label={t('notify.fields.quietTimeZone')}>
            <TextField.Root name="quietTimeZone" value={v.quietTimeZone} onChange={(e) => form.set('quietTimeZone', e.target.value)} />
          </Field>
        </Grid>
      )}
    </FormDialog>
  );
}

/**
 * Notification settings (spec §2): which channels carry this tenant's notifications (its own credentials, or the
 * platform's environment as the fallback) and where, the storm caps, quiet hours, retries and ticket reminders.
 * Credentials are never shown.
 */
export function NotifySettingsPage() {
  const { t } = useTranslation();
  const user = useSession();
  const [editing, setEditing] = useState<NotifySettingsAnswer | null>(null);
  const settings = useQuery({ queryKey: [SETTINGS], queryFn: () => callRoute('notify.settings', {}) });
  if (!settings.data) return <Loading />;
  const s = settings.data;
  const quiet = s.tenant.quietHours;
  return (
    <Flex direction="column" gap="3">
      <Flex justify="between" align="center">
        <Heading size="3">{t('notify.channels')}</Heading>
        {can(user, alarmPerm.settingsEdit) && (
          <Button data-testid="edit-notify-settings" onClick={() => setEditing(s)}>
            {t('notify.editSettings')}
          </Button>
        )}
      </Flex>
      <Grid columns={{ initial: '1', md: '3' }} gap="3" data-testid="notify-channels">
        {s.channels.map((c) => (
          <Card key={c.kind} data-kind={c.kind}>
            <Flex justify="between" align="center" mb="2">
              <Text weight="bold">{t(`notify.channelKinds.${c.kind}`)}</Text>
              <Badge color={c.configured ? 'green' : 'gray'}>{t(c.configured ? 'notify.configured' : 'notify.localOutboxOnly')}</Badge>
            </Flex>
            {c.source && (
              <Text as="div" size="1" color="gray" data-testid="channel-source">
                {t(`notify.sources2.${c.source}`)}
              </Text>
            )}
            {c.target && (
              <Text as="div" size="2">
                {c.target}
              </Text>
            )}
            {c.source !== 'tenant' && c.variables.length > 0 && (
              <Text as="div" size="1" color="gray">
                {t('notify.configuredBy')}{' '}
                {c.variables.map((v) => (
                  <Code key={v} mr="1">
                    {v}
                  </Code>
                ))}
              </Text>
            )}
          </Card>
        ))}
      </Grid>
      <Card>
        <Heading size="3" mb="2">
          {t('notify.limits')}
        </Heading>
        <DataList.Root>
          <DataList.Item>
            <DataList.Label>{t('notify.tenantPerMinute')}</DataList.Label>
            <DataList.Value>{s.tenantPerMinute}</DataList.Value>
          </DataList.Item>
          <DataList.Item>
            <DataList.Label>{t('notify.contactPerMinute')}</DataList.Label>
            <DataList.Value>{s.contactPerMinute}</DataList.Value>
          </DataList.Item>
          <DataList.Item>
            <DataList.Label>{t('notify.quietHours')}</DataList.Label>
            <DataList.Value data-testid="quiet-hours">
              {quiet
                ? t('notify.quietSummary', {
                    start: quiet.start,
                    end: quiet.end,
                    timeZone: quiet.timeZone,
                    level: t(`alarm.levels.${quiet.minLevel}`),
                  })
                : t('notify.quietNone')}
            </DataList.Value>
          </DataList.Item>
          <DataList.Item>
            <DataList.Label>{t('notify.retryPolicy')}</DataList.Label>
            <DataList.Value>{t('notify.retryEvery', { seconds: s.retryMs / 1000 })}</DataList.Value>
          </DataList.Item>
          <DataList.Item>
            <DataList.Label>{t('notify.ticketReminder')}</DataList.Label>
            <DataList.Value>{t('notify.minutes', { minutes: s.ticketReminderMin })}</DataList.Value>
          </DataList.Item>
        </DataList.Root>
      </Card>
      <SettingsDialog editing={editing} onClose={() => setEditing(null)} />
    </Flex>
  );
}
