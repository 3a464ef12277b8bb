import './i18n.ts';
import { DateTimeInput } from '../ui/DateTimeInput.tsx';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Badge, Button, Callout, Card, Flex, Grid, Heading, IconButton, Table, Text, TextField } from '@radix-ui/themes';
import { Cross2Icon, PlusIcon } from '@radix-ui/react-icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { minuteOfDay, priceKinds, type PriceKind, type PriceScheduleRow } from '@iot/contracts/power/model.ts';
import { powerPerm } from '@iot/contracts/power/permissions.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { confirm, notice } from '../ui/feedback.tsx';
import { checkBody, Field, FormDialog, useForm } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { SelectInput } from '../ui/widgets.tsx';
import { useStations } from './EnergyPanel.tsx';

const DEFAULT = '*default';
type Period = { kind: PriceKind; start: string; end: string };
type FormValues = { groupId: string; currency: string; prices: Record<PriceKind, string>; periods: Period[] };

/** A common two-part day to start from: valley 23:00-07:00, peaks 08:00-11:00 and 18:00-21:00, flat between. */
const starter: Period[] = [
  { kind: 'valley', start: '23:00', end: '07:00' },
  { kind: 'flat', start: '07:00', end: '08:00' },
  { kind: 'peak', start: '08:00', end: '11:00' },
  { kind: 'flat', start: '11:00', end: '18:00' },
  { kind: 'peak', start: '18:00', end: '21:00' },
  { kind: 'flat', start: '21:00', end: '23:00' },
];
const emptyForm: FormValues = {
  groupId: DEFAULT,
  currency: 'CNY',
  prices: { sharp: '', peak: '1.2', flat: '0.7', valley: '0.3' },
  periods: starter,
};
const formOf = (row: PriceScheduleRow): FormValues => ({
  groupId: row.groupId ?? DEFAULT,
  currency: row.currency,
  prices: Object.fromEntries(priceKinds.map((k) => [k, row.prices[k] === null ? '' : String(row.prices[k])])) as Record<PriceKind, string>,
  // A time input shows no 24:00: midnight as the end of a day is 00:00 (an end at or before the start crosses midnight).
  periods: row.periods.map((p) => ({ ...p, end: p.end === '24:00' ? '00:00' : p.end })),
});

/** Adds or edits a schedule: the station it prices (or the default), a price per kind, and the periods of the day. */
function ScheduleDialog({
  editing,
  taken,
  onClose,
}: {
  editing: PriceScheduleRow | 'new';
  /** The default (null) and the stations that have a schedule already: a new one goes to the first that has none. */
  taken: Set<string | null>;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const stations = useStations();
  const free = taken.has(null) ? (stations.data?.find((s) => !taken.has(s.id))?.id ?? DEFAULT) : DEFAULT;
  const form = useForm<FormValues>(editing === 'new' ? { ...emptyForm, groupId: free } : formOf(editing));
  const [busy, setBusy] = useState(false);
  const v = form.values;
  const route = editing === 'new' ? 'power.priceAdd' : 'power.priceEdit';
  const setPeriod = (i: number, patch: Partial<Period>) =>
    form.set(
      'periods',
      v.periods.map((p, j) => (j === i ? { ...p, ...patch } : p)),
    );
  const submit = async () => {
    const body = {
      groupId: v.groupId === DEFAULT ? null : v.groupId,
      currency: v.currency,
      prices: Object.fromEntries(priceKinds.map((k) => [k, v.prices[k].trim() === '' ? null : Number(v.prices[k])])),
      periods: v.periods,
    };
    const checked = checkBody(route, body, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    setBusy(true);
    try {
      await callRoute(checked.route, { body: checked.data });
      notice.success(t('common.saved'));
      form.markSaved();
      await client.invalidateQueries({ queryKey: ['power'] });
      onClose();
    } catch (e) {
      notice.error(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  const scopeOptions = [
    { value: DEFAULT, label: t('price.default') },
    ...(stations.data ?? []).map((s) => ({
      value: s.id,
      label: taken.has(s.id) && editing === 'new' ? `${s.name} (${t('price.stationTaken')})` : s.name,
    })),
  ];
  return (
    <FormDialog
      open
      width="640px"
      title={
        editing === 'new' ? t('common.addObject', { object: t('price.object') }) : t('common.editObject', { object: t('price.object') })
      }
      dirty={form.dirty}
      busy={busy}
      onClose={onClose}
      onSubmit={() => void submit()}
    >
      <Field label={t('price.scope')} required error={form.errors.groupId} hint={t('price.defaultHint')}>
        {editing === 'new' ? (
          <SelectInput name="groupId" value={v.groupId} onChange={(x) => form.set('groupId', x)} options={scopeOptions} />
        ) : (
          <Text>{editing.groupName ?? t('price.default')}</Text>
        )}
      </Field>
      <Field label={t('price.currency')} required error={form.errors.currency}>
        <TextField.Root name="currency" value={v.currency} maxLength={8} onChange={(e) => form.set('currency', e.target.value)} />
      </Field>
      <Field label={t('price.prices')} error={form.errors.prices} hint={t('price.pricesHint')}>
        <Grid columns="4" gap="2">
          {priceKinds.map((k) => (
            <label key={k}>
              <Text as="div" size="1" color="gray">
                {t(`energy.kinds.${k}`)}
              </Text>
              <TextField.Root
                name={`price-${k}`}
                aria-label={t(`energy.kinds.${k}`)}
                type="number"
                min={0}
                step="0.0001"
                value={v.prices[k]}
                placeholder={t('price.noPrice')}
                onChange={(e) => form.set('prices', { ...v.prices, [k]: e.target.value })}
              />
            </label>
          ))}
        </Grid>
      </Field>
      <Field label={t('price.periods')} required error={form.errors.periods} hint={t('price.periodsHint')}>
        <Flex direction="column" gap="2" data-testid="price-periods">
          {v.periods.map((p, i) => (
            <Flex key={i} gap="2" align="center">
              <div style={{ width: 120 }}>
                <SelectInput
                  name={`${t('price.kind')} ${i + 1}`}
                  value={p.kind}
                  onChange={(x) => setPeriod(i, { kind: x as PriceKind })}
                  options={priceKinds.map((k) => ({ value: k, label: t(`energy.kinds.${k}`) }))}
                />
              </div>
              <DateTimeInput
                kind="time"
                aria-label={`${t('price.start')} ${i + 1}`}
                value={p.start}
                onChange={(x) => setPeriod(i, { start: x })}
              />
              <Text color="gray">–</Text>
              <DateTimeInput
                kind="time"
                aria-label={`${t('price.end')} ${i + 1}`}
                value={p.end}
                onChange={(x) => setPeriod(i, { end: x })}
              />
              <IconButton
                type="button"
                variant="ghost"
                color="gray"
                aria-label={t('price.removePeriod')}
                title={t('price.removePeriod')}
                disabled={v.periods.length <= 1}
                onClick={() =>
                  form.set(
                    'periods',
                    v.periods.filter((_, j) => j !== i),
                  )
                }
              >
                <Cross2Icon />
              </IconButton>
            </Flex>
          ))}
          <Flex>
            <Button
              type="button"
              size="1"
              variant="soft"
              disabled={v.periods.length >= 24}
              onClick={() => form.set('periods', [...v.periods, { kind: 'flat', start: v.periods.at(-1)?.end ?? '00:00', end: '00:00' }])}
            >
              <PlusIcon /> {t('price.addPeriod')}
            </Button>
          </Flex>
        </Flex>
      </Field>
    </FormDialog>
  );
}

/** A day of 24 hours coloured by the kind of each period: what the schedule looks like at a glance. */
function DayStrip({ periods }: { periods: PriceScheduleRow['periods'] }) {
  const { t } = useTranslation();
  const colours: Record<PriceKind, string> = { sharp: '#E5484D', peak: '#F76B15', flat: '#2E68EA', valley: '#30A46C' };
  const parts = periods.flatMap((p) => {
    const s = minuteOfDay(p.start);
    const e = minuteOfDay(p.end) % 1440 || 1440;
    const title = `${t(`energy.kinds.${p.kind}`)} ${p.start}–${p.end}`;
    return e > s
      ? [{ kind: p.kind, s, e, title }]
      : [{ kind: p.kind, s, e: 1440, title }, ...(e > 0 ? [{ kind: p.kind, s: 0, e, title }] : [])];
  });
  return (
    <div style={{ position: 'relative', height: 14, borderRadius: 4, overflow: 'hidden', background: 'var(--gray-4)', minWidth: 240 }}>
      {parts.map((p, i) => (
        <div
          key={i}
          title={p.title}
          style={{
            position: 'absolute',
            left: `${(p.s / 1440) * 100}%`,
            width: `${((p.e - p.s) / 1440) * 100}%`,
            top: 0,
            bottom: 0,
            background: colours[p.kind],
          }}
        />
      ))}
    </div>
  );
}

/**
 * Data analysis → business statistics → price schedules (issue 20, spec §7 power price): the tenant's default tariff
 * and each station's own, with sharp, peak, flat and valley prices and the periods of the day they apply in.
 */
export function PriceSchedulesPanel() {
  const { t } = useTranslation();
  const me = useSession();
  const client = useQueryClient();
  const list = useQuery({ queryKey: ['power', 'prices'], queryFn: () => callRoute('power.prices', {}) });
  const [editing, setEditing] = useState<PriceScheduleRow | 'new' | null>(null);
  const mayEdit = can(me, powerPerm.price);
  // The stations are known before the dialog opens, so that a new schedule starts on one that has none.
  useStations();
  const rows = list.data ?? [];
  const remove = async (row: PriceScheduleRow) => {
    const name = row.groupName ?? t('price.default');
    if (!(await confirm({ message: t('price.deleteQuestion', { name }), confirmLabel: t('common.delete'), danger: true }))) return;
    try {
      await callRoute('power.priceDelete', { query: row.groupId ? { groupId: row.groupId } : {} });
      notice.success(t('common.deleted'));
      await client.invalidateQueries({ queryKey: ['power'] });
    } catch (e) {
      notice.error(messageOf(e));
    }
  };
  return (
    <Flex direction="column" gap="3" data-testid="prices">
      <Flex justify="between" align="center">
        <Text size="2" color="gray">
          {t('price.defaultHint')}
        </Text>
        {mayEdit && (
          <Button onClick={() => setEditing('new')}>
            <PlusIcon /> {t('price.add')}
          </Button>
        )}
      </Flex>
      {list.isError && (
        <Callout.Root color="red" role="alert">
          <Callout.Text>{messageOf(list.error)}</Callout.Text>
        </Callout.Root>
      )}
      {list.isLoading && <Text color="gray">{t('common.loading')}</Text>}
      {list.data && rows.length === 0 && (
        <Callout.Root color="gray" data-testid="prices-empty">
          <Callout.Text>{t('price.empty')}</Callout.Text>
        </Callout.Root>
      )}
      {rows.map((row) => (
        <Card key={row.groupId ?? DEFAULT} data-testid="price-schedule">
          <Flex justify="between" align="start" gap="3" wrap="wrap">
            <Flex direction="column" gap="2" style={{ flex: 1 }}>
              <Flex gap="2" align="center">
                <Heading size="3">{row.groupName ?? t('price.default')}</Heading>
                <Badge color="gray">{row.currency}</Badge>
                <Text size="1" color="gray">
                  {t('price.updateTime')}: {formatDate(row.updateTime, true)}
                </Text>
              </Flex>
              <DayStrip periods={row.periods} />
              <Table.Root size="1">
                <Table.Header>
                  <Table.Row>
                    <Table.ColumnHeaderCell>{t('price.kind')}</Table.ColumnHeaderCell>
                    <Table.ColumnHeaderCell>{t('price.prices')}</Table.ColumnHeaderCell>
                    <Table.ColumnHeaderCell>{t('price.periods')}</Table.ColumnHeaderCell>
                  </Table.Row>
                </Table.Header>
                <Table.Body>
                  {priceKinds
                    .filter((k) => row.periods.some((p) => p.kind === k))
                    .map((k) => (
                      <Table.Row key={k}>
                        <Table.Cell>{t(`energy.kinds.${k}`)}</Table.Cell>
                        <Table.Cell>{row.prices[k] ?? '--'}</Table.Cell>
                        <Table.Cell>
                          {row.periods
                            .filter((p) => p.kind === k)
                            .map((p) => `${p.start}–${p.end}`)
                            .join(', ')}
                        </Table.Cell>
                      </Table.Row>
                    ))}
                </Table.Body>
              </Table.Root>
            </Flex>
            {mayEdit && (
              <Flex gap="2">
                <Button size="1" variant="soft" onClick={() => setEditing(row)}>
                  {t('price.edit')}
                </Button>
                <Button size="1" variant="soft" color="red" onClick={() => void remove(row)}>
                  {t('price.delete')}
                </Button>
              </Flex>
            )}
          </Flex>
        </Card>
      ))}
      {editing && <ScheduleDialog editing={editing} taken={new Set(rows.map((r) => r.groupId))} onClose={() => setEditing(null)} />}
    </Flex>
  );
}
