import { useTranslation } from 'react-i18next';
import type { OplogRow } from '@iot/contracts/identity/oplog.ts';
import { endpoints } from '../api/endpoints.ts';
import { en } from '../i18n/en.ts';
import { formatDate } from '../ui/format.ts';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';

const eventTypes = Object.keys(en.event);

/** 'MenuCreated' reads 'Menu created' when the event has no translation yet. */
const words = (type: string) => type.replace(/([a-z])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`);

/** Who did what, when, from where: read only, exportable. */
export function OperationLogPage() {
  const { t, i18n } = useTranslation();
  const eventName = (type: string) => (i18n.exists(`event.${type}`) ? t(`event.${type}`) : words(type));
  // A stream is 'kind-tenant.id' (menu-system.user): the kind in the user's language, then the target's name.
  const target = (row: OplogRow) => {
    const dash = row.stream.indexOf('-');
    const kind = dash > 0 ? row.stream.slice(0, dash) : '';
    const name = row.targetName ?? row.stream.slice(dash + 1);
    return i18n.exists(`log.stream.${kind}`) ? `${t(`log.stream.${kind}`)} · ${name}` : row.stream;
  };
  // The platform's own actors ('anonymous' for a visitor registering) in the user's language.
  const actorOf = (row: OplogRow) =>
    row.actorName ?? (row.actorKind === 'system' ? t(`log.systemActor.${row.actorId}`, { defaultValue: row.actorId }) : row.actorId);
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
      endpoint={endpoints.log}
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
