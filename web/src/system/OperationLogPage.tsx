import { useTranslation } from 'react-i18next';
import type { OplogRow } from '@iot/contracts/identity/oplog.ts';
import { formatDate } from '../ui/format.ts';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { useLogNames } from './logNames.ts';

/** 'MenuCreated' reads 'Menu created' when the event has no translation yet. */
const words = (type: string) => type.replace(/([a-z])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`);

/** Who did what, when, from where: read only, exportable. */
export function OperationLogPage() {
  const { t, i18n } = useTranslation();
  const eventTypes = Object.keys((i18n.getResourceBundle('en', 'translation') as { event: object }).event);
  const eventName = (type: string) => (i18n.exists(`event.${type}`) ? t(`event.${type}`) : words(type));
  const { actorOf, targetOf } = useLogNames();
  const target = (row: OplogRow) => {
    const { kind, name } = targetOf(row);
    return i18n.exists(`log.stream.${kind}`) ? `${t(`log.stream.${kind}`)} · ${name}` : row.stream;
  };
  const columns: ListColumn<OplogRow>[] = [
    { id: 'occurredAt', header: t('log.time'), value: (r) => formatDate(r.occurredAt, true), sortable: true, width: 160 },
    { id: 'actorId', header: t('log.actor'), value: (r) => actorOf(r), sortable: true, width: 130 },
    { id: 'actorKind', header: t('log.actorKind'), value: (r) => t(`log.kind.${r.actorKind}`, { defaultValue: r.actorKind }), width: 90 },
    { id: 'eventType', header: t('log.operation'), value: (r) => eventName(r.eventType), sortable: true, width: 180 },
    { id: 'stream', header: t('log.target'), value: (r) => target(r), width: 240 },
    { id: 'ip', header: t('log.ip'), value: (r) => r.ip, width: 120 },
  ];
  return (
    <ListPage<OplogRow>
      queryKey="oplog"
      route="oplog.list"
      exportName={t('menu.operationLog')}
      rowId={(r) => r.position}
      selectable={false}
      columns={columns}
      defaultSort={{ sort: 'occurredAt', order: 'desc' }}
      filters={[
        { name: 'actor', label: t('log.actor') },
        {
          name: 'eventType',
          label: t('log.operation'),
          type: 'select',
          options: eventTypes.map((type) => ({ value: type, label: eventName(type) })),
        },
        { name: 'from', label: t('log.from'), type: 'datetime' },
        { name: 'to', label: t('log.to'), type: 'datetime' },
      ]}
    />
  );
}
