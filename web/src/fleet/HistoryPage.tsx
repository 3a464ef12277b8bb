import './i18n.ts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Flex, Table, Text } from '@radix-ui/themes';
import { callRoute, messageOf } from '../api/client.ts';
import { notice } from '../ui/feedback.tsx';
import { Field } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { SelectInput } from '../ui/widgets.tsx';
import { downloadRoute } from './download.ts';
import { TrendChart } from './TrendChart.tsx';
import { DateTimeInput } from '../ui/DateTimeInput.tsx';

type Series = Awaited<ReturnType<typeof callRoute<'telemetry.history'>>>;
const local = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/** Historical data (spec §2, §5): a device and a variable, a range, raw values or buckets; chart, table, export. */
export function HistoryPage() {
  const { t } = useTranslation();
  const devices = useQuery({
    queryKey: ['devices', 'options'],
    queryFn: async () => (await callRoute('device.list', { query: { pageSize: 500 } })).rows,
  });
  const [deviceId, setDeviceId] = useState('');
  const [variable, setVariable] = useState('');
  const [bucket, setBucket] = useState<'raw' | '15m' | '1h' | '1d'>('15m');
  const [from, setFrom] = useState(local(new Date(Date.now() - 86_400_000)));
  const [to, setTo] = useState(local(new Date()));
  const [series, setSeries] = useState<Series | null>(null);
  const detail = useQuery({
    queryKey: ['device', deviceId],
    queryFn: () => callRoute('device.detail', { query: { id: deviceId } }),
    enabled: !!deviceId,
  });
  const properties = (detail.data?.functions ?? [])
    .filter((f) => f.type === 'property')
    .map((f) => ({ value: String(f.identifier), label: `${String(f.name)} (${String(f.identifier)})` }));
  const range = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  const run = async () => {
    if (!deviceId || !variable) return notice.warning(t('fleet.completeQuery'));
    try {
      setSeries(
        await callRoute('telemetry.history', { query: { id: deviceId, variables: variable, bucket, fn: 'avg', ...range, pageSize: 5000 } }),
      );
    } catch (e) {
      notice.error(messageOf(e));
    }
  };
  return (
    <Flex direction="column" gap="3">
      <Card>
        <Flex gap="3" wrap="wrap" align="end">
          <Field label={t('fleet.device')} required>
            <SelectInput
              value={deviceId}
              onChange={(v) => (setDeviceId(v), setVariable(''))}
              options={(devices.data ?? []).map((d) => ({ value: d.id, label: `${d.name} (${d.sn})` }))}
              placeholder={t('fleet.chooseDevice')}
            />
          </Field>
          <Field label={t('fleet.variable')} required>
            <SelectInput value={variable} onChange={setVariable} options={properties} placeholder={t('common.selectPlaceholder')} />
          </Field>
          <Field label={t('fleet.bucket')}>
            <SelectInput
              value={bucket}
              onChange={(v) => setBucket(v as typeof bucket)}
              options={(['raw', '15m', '1h', '1d'] as const).map((v) => ({ value: v, label: t(`fleet.${v}`) }))}
            />
          </Field>
          <Field label={t('fleet.from')}>
            <DateTimeInput aria-label={t('fleet.from')} value={from} onChange={setFrom} />
          </Field>
          <Field label={t('fleet.to')}>
            <DateTimeInput aria-label={t('fleet.to')} value={to} onChange={setTo} />
          </Field>
          <Button onClick={() => void run()}>{t('fleet.query')}</Button>
          <Button
            variant="soft"
            disabled={!deviceId || !variable}
            onClick={() =>
              void downloadRoute('telemetry.export', { id: deviceId, variables: variable, ...range }, `history-${variable}.csv`).catch(
                (e: unknown) => notice.error(messageOf(e)),
              )
            }
          >
            {t('fleet.export')}
          </Button>
        </Flex>
      </Card>
      {series && series.every((s) => s.points.length === 0) && <Text color="gray">{t('common.noData')}</Text>}
      {series && series.some((s) => s.points.length > 0) && (
        <>
          <Card>
            <TrendChart
              label={t('fleet.historyChart')}
              height={360}
              series={series.map((s) => ({
                name: s.name ?? s.variable,
                points: s.points.map((p) => [p.ts, p.value] as [string, number | null]),
              }))}
            />
          </Card>
          <Table.Root size="1" variant="surface">
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeaderCell>{t('fleet.time')}</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>{`${series[0]!.name ?? series[0]!.variable} · ${t('fleet.value')}`}</Table.ColumnHeaderCell>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {series[0]!.points
                .slice(-200)
                .reverse()
                .map((p) => (
                  <Table.Row key={p.ts}>
                    <Table.Cell>{formatDate(p.ts, true)}</Table.Cell>
                    <Table.Cell>
                      {p.text ??
                        (p.value === null ? '--' : `${Math.round(p.value * 100) / 100}${series[0]!.unit ? ` ${series[0]!.unit}` : ''}`)}
                    </Table.Cell>
                  </Table.Row>
                ))}
            </Table.Body>
          </Table.Root>
        </>
      )}
    </Flex>
  );
}
