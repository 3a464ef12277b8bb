import './ops-i18n.ts';
import { useTranslation } from 'react-i18next';
import { Badge, Flex, Table, Text } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { statPerm } from '@iot/contracts/stat/permissions.ts';
import { systemOpsPerm } from '@iot/contracts/system/permissions.ts';
import { callRoute } from '../api/client.ts';
import { PermittedRowButton, useListChange } from '../ui/crud.tsx';
import { EMPTY, formatDate } from '../ui/format.ts';

type JobRow = Awaited<ReturnType<typeof callRoute<'systemTask.list'>>>[number];
const JOBS = 'systemTasks';
const statusColour = { enabled: 'green', stopped: 'gray', pending: 'amber' } as const;

/**
 * System management → tasks (spec §2): every scheduled job of the tenant with its schedule and next run; pause and
 * resume go through the job's own capability (a statistic task's enable/stop), after a confirm.
 */
export function TasksPage() {
  const { t } = useTranslation();
  const change = useListChange(JOBS);
  const jobs = useQuery({ queryKey: [JOBS], queryFn: () => callRoute('systemTask.list', { query: {} }) });
  const setStatus = (job: JobRow, status: 'enabled' | 'stopped') => {
    const pausing = status === 'stopped';
    void change(
      () => callRoute('statTask.status', { body: { id: job.sourceId, status } }),
      t(pausing ? 'systemTask.paused' : 'systemTask.resumed'),
      { message: t(pausing ? 'systemTask.pauseQuestion' : 'systemTask.resumeQuestion', { name: job.name }), danger: pausing },
    );
  };
  const runNow = (job: JobRow) =>
    void change(() => callRoute('systemTask.run', { body: { id: job.sourceId } }), t('systemTask.runRequested'), {
      message: t('systemTask.runNowQuestion', { name: job.name }),
    });
  /** A statistic run's result in words (`success`, or `failed: <reason>`); a retry's error class as it is. */
  const resultText = (result: string) => {
    const [head, ...rest] = result.split(': ');
    const named = t(`systemTask.results.${head}`, { defaultValue: head });
    return [named, ...rest].join(': ');
  };
  const rows = jobs.data ?? [];
  if (jobs.isSuccess && rows.length === 0) return <Text color="gray">{t('systemTask.empty')}</Text>;
  return (
    <Table.Root size="1" variant="surface">
      <Table.Header>
        <Table.Row>
          <Table.ColumnHeaderCell>{t('systemTask.kind')}</Table.ColumnHeaderCell>
          <Table.ColumnHeaderCell>{t('systemTask.name')}</Table.ColumnHeaderCell>
          <Table.ColumnHeaderCell>{t('systemTask.schedule')}</Table.ColumnHeaderCell>
          <Table.ColumnHeaderCell>{t('systemTask.status')}</Table.ColumnHeaderCell>
          <Table.ColumnHeaderCell>{t('systemTask.nextRun')}</Table.ColumnHeaderCell>
          <Table.ColumnHeaderCell>{t('systemTask.lastRun')}</Table.ColumnHeaderCell>
          <Table.ColumnHeaderCell>{t('systemTask.lastResult')}</Table.ColumnHeaderCell>
          <Table.ColumnHeaderCell>{t('systemTask.duration')}</Table.ColumnHeaderCell>
          <Table.ColumnHeaderCell>{t('systemTask.pending')}</Table.ColumnHeaderCell>
          <Table.ColumnHeaderCell>{t('common.actions')}</Table.ColumnHeaderCell>
        </Table.Row>
      </Table.Header>
      <Table.Body>
        {rows.map((job) => (
          <Table.Row key={job.id}>
            <Table.Cell>{t(`systemTask.kinds.${job.kind}`)}</Table.Cell>
            <Table.Cell>{job.name}</Table.Cell>
            <Table.Cell>
              {t(`systemTask.schedules.${job.schedule}`, { defaultValue: job.schedule })}
              {job.timeZone ? ` (${job.timeZone})` : ''}
            </Table.Cell>
            <Table.Cell>
              <Badge color={statusColour[job.status]} variant="soft">
                {t(`systemTask.statuses.${job.status}`)}
              </Badge>
            </Table.Cell>
            <Table.Cell>{job.nextRun ? formatDate(job.nextRun, true) : EMPTY}</Table.Cell>
            <Table.Cell>{job.lastRun ? formatDate(job.lastRun, true) : EMPTY}</Table.Cell>
            <Table.Cell>{job.lastResult ? resultText(job.lastResult) : EMPTY}</Table.Cell>
            <Table.Cell>{job.durationMs === null ? EMPTY : `${job.durationMs} ms`}</Table.Cell>
            <Table.Cell>{job.pending ?? EMPTY}</Table.Cell>
            <Table.Cell>
              <Flex gap="2">
                {job.canPause && (
                  <PermittedRowButton
                    permission={statPerm.enable}
                    label={t('systemTask.pause')}
                    danger
                    onClick={() => setStatus(job, 'stopped')}
                  />
                )}
                {job.canRunNow && (
                  <PermittedRowButton permission={systemOpsPerm.taskRunNow} label={t('systemTask.runNow')} onClick={() => runNow(job)} />
                )}
                {job.canResume && (
                  <PermittedRowButton
                    permission={statPerm.enable}
                    label={t('systemTask.resume')}
                    onClick={() => setStatus(job, 'enabled')}
                  />
                )}
              </Flex>
            </Table.Cell>
          </Table.Row>
        ))}
      </Table.Body>
    </Table.Root>
  );
}
