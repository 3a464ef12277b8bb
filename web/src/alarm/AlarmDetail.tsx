import './i18n.ts';
import { useTranslation } from 'react-i18next';
import { Badge, Box, Button, DataList, Dialog, Flex, Text } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { callRoute } from '../api/client.ts';
import { formatDate } from '../ui/format.ts';
import { Loading } from '../ui/Loading.tsx';
import { LevelBadge } from './common.tsx';

type Detail = Awaited<ReturnType<typeof callRoute<'alarm.detail'>>>;
type Step = Detail['timeline'][number];

const colours: Record<Step['type'], 'red' | 'amber' | 'blue' | 'green' | 'gray' | 'violet'> = {
  AlarmRaised: 'red',
  AlarmRepeated: 'amber',
  AlarmAcknowledged: 'blue',
  AlarmProcessed: 'violet',
  AlarmCleared: 'green',
  AlarmTicketOpened: 'gray',
  AlarmTicketClosed: 'gray',
};

/** What one step says beyond its name: the value that crossed or came back, the note, the repeats, the ticket. */
function stepText(t: (k: string, o?: Record<string, unknown>) => string, s: Step) {
  const parts: string[] = [];
  if (s.value !== null || s.text !== null) parts.push(t('alarm.detailValue', { value: s.value ?? s.text }));
  if (s.measuredAt) parts.push(t('alarm.detailMeasured', { at: formatDate(s.measuredAt, true) }));
  if (s.count !== null) parts.push(t('alarm.detailCount', { count: s.count }));
  if (s.auto) parts.push(t('alarm.detailAuto'));
  if (s.note) parts.push(t('alarm.detailNote', { note: s.note }));
  if (s.ticketId) parts.push(`${t('notify.ticketId')} ${s.ticketId}`);
  return parts.join(' · ');
}

/** One alarm and its timeline (raised, repeated, acknowledged, processed, cleared, tickets), who and when. */
export function AlarmDetailDialog({ alarmId, onClose }: { alarmId: string | null; onClose: () => void }) {
  const { t } = useTranslation();
  const detail = useQuery({
    queryKey: ['alarmDetail', alarmId],
    enabled: !!alarmId,
    queryFn: () => callRoute('alarm.detail', { query: { id: alarmId! } }),
  });
  const a = detail.data?.alarm;
  return (
    <Dialog.Root open={!!alarmId} onOpenChange={(open) => !open && onClose()}>
      <Dialog.Content maxWidth="640px" data-testid="alarm-detail">
        <Dialog.Title>{t('alarm.detail')}</Dialog.Title>
        {!a ? (
          detail.isError ? (
            <Text color="red">{t('alarm.detailMissing')}</Text>
          ) : (
            <Loading />
          )
        ) : (
          <>
            <DataList.Root size="2" mb="4">
              <DataList.Item>
                <DataList.Label>{t('alarm.level')}</DataList.Label>
                <DataList.Value>
                  <LevelBadge level={a.level} />
                </DataList.Value>
              </DataList.Item>
              <DataList.Item>
                <DataList.Label>{t('alarm.device')}</DataList.Label>
                <DataList.Value>
                  {a.deviceName} {a.sn ? `(${a.sn})` : ''}
                </DataList.Value>
              </DataList.Item>
              <DataList.Item>
                <DataList.Label>{t('alarm.rule')}</DataList.Label>
                <DataList.Value>{a.ruleName ?? t('alarm.triggers.manual')}</DataList.Value>
              </DataList.Item>
              <DataList.Item>
                <DataList.Label>{t('alarm.variable')}</DataList.Label>
                <DataList.Value>
                  {a.variable} {a.threshold ? `(${a.threshold})` : ''}
                </DataList.Value>
              </DataList.Item>
              <DataList.Item>
                <DataList.Label>{t('alarm.status')}</DataList.Label>
                <DataList.Value>{t(a.status === 'active' ? 'alarm.current' : 'alarm.cleared')}</DataList.Value>
              </DataList.Item>
              {a.cause && (
                <DataList.Item>
                  <DataList.Label>{t('alarm.cause')}</DataList.Label>
                  <DataList.Value>{a.cause}</DataList.Value>
                </DataList.Item>
              )}
            </DataList.Root>
            <Text as="div" weight="bold" mb="2">
              {t('alarm.timeline')}
            </Text>
            <Box className="alarm-timeline" data-testid="alarm-timeline">
              {detail.data!.timeline.map((s, i) => (
                <Flex key={i} gap="3" align="start" mb="2" data-type={s.type}>
                  <Badge color={colours[s.type]} style={{ minWidth: 72, justifyContent: 'center' }}>
                    {t(`alarm.steps.${s.type}`)}
                  </Badge>
                  <Box>
                    <Text as="div" size="2">
                      {formatDate(s.at, true)} · {s.actorKind === 'user' ? (s.actorName ?? s.actorId) : t('alarm.byPlatform')}
                    </Text>
                    <Text as="div" size="1" color="gray">
                      {stepText(t, s)}
                    </Text>
                  </Box>
                </Flex>
              ))}
            </Box>
          </>
        )}
        <Flex justify="end" mt="3">
          <Dialog.Close>
            <Button variant="soft" color="gray">
              {t('common.close')}
            </Button>
          </Dialog.Close>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}
