import './i18n.ts';
import { useMemo, useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { Badge, Button, Card, Dialog, Flex, Text } from '@radix-ui/themes';
import { ChevronDownIcon, ChevronRightIcon } from '@radix-ui/react-icons';
import type { DeviceRow } from '@iot/contracts/device/model.ts';
import { devicePerm } from '@iot/contracts/device/permissions.ts';
import type { GroupNode } from '@iot/contracts/identity/group.ts';
import { ApiError, callRoute } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { PermittedRowButton, useListChange } from '../ui/crud.tsx';
import { Ellipsis } from '../ui/Ellipsis.tsx';
import { Field } from '../ui/form.tsx';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput } from '../ui/widgets.tsx';
import { DeviceDetail } from './DevicesPage.tsx';

const GROUPED = 'groupedDevices';
const COUNTS = 'groupCounts';
/** What a dragged device row carries: the device's id. */
const DRAG_TYPE = 'application/x-device-id';

interface Counted {
  total: number;
  online: number;
}
/** A group with its devices counted over its whole subtree (a region counts the devices of its sites). */
type CountedNode = Omit<GroupNode, 'children'> & { count: Counted; children: CountedNode[] };

function countTree(nodes: GroupNode[], direct: Map<string | null, Counted>): CountedNode[] {
  return nodes.map((n) => {
    const children = countTree(n.children, direct);
    const own = direct.get(n.id) ?? { total: 0, online: 0 };
    const count = children.reduce((sum, c) => ({ total: sum.total + c.count.total, online: sum.online + c.count.online }), own);
    return { ...n, children, count };
  });
}

const rate = (c: Counted) => (c.total === 0 ? null : Math.round((c.online / c.total) * 100));

/**
 * Device grouping (spec §2 "Device management: grouping"): the group tree with each group's type (spec §9), its
 * devices and their online rate, beside the devices of the chosen group; devices move between groups one at a
 * time (drag a device onto a group, or its row's move) or many at once (select, then move).
 */
export function GroupingPage() {
  const { t } = useTranslation();
  const me = useSession();
  const mayMove = can(me, devicePerm.deviceEdit);
  const [selected, setSelected] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [moving, setMoving] = useState<DeviceRow[] | null>(null);
  const change = useListChange(GROUPED);
  const tree = useQuery({ queryKey: ['groups', 'tree'], queryFn: () => callRoute('group.tree', { query: {} }) });
  const counts = useQuery({ queryKey: [GROUPED, COUNTS], queryFn: () => callRoute('device.groupCounts', {}) });
  const counted = useMemo(
    () => countTree(tree.data ?? [], new Map((counts.data ?? []).map((c) => [c.groupId, { total: c.total, online: c.online }]))),
    [tree.data, counts.data],
  );
  const all = (counts.data ?? []).reduce((s, c) => ({ total: s.total + c.total, online: s.online + c.online }), { total: 0, online: 0 });
  const nameOf = (id: string | null): string => {
    const find = (nodes: CountedNode[]): string | null => {
      for (const n of nodes) if (n.id === id) return n.name;
      for (const n of nodes) {
        const below = find(n.children);
        if (below) return below;
      }
      return null;
    };
    return id ? (find(counted) ?? '') : t('fleet.allDevices');
  };

  const moveTo = (rows: DeviceRow[], groupId: string) =>
    change(
      async () => {
        if (rows.length === 1) return callRoute('device.move', { body: { id: rows[0]!.id, groupId } });
        const r = await callRoute('device.bulk', { body: { action: 'moveGroup', ids: rows.map((d) => d.id), groupId } });
        if (r.failed > 0) throw new ApiError(200, 'PARTLY', t('fleet.bulkResult', r));
      },
      t('fleet.moved', { count: rows.length, group: nameOf(groupId) }),
    );

  const columns: ListColumn<DeviceRow>[] = [
    {
      id: 'name',
      header: t('fleet.deviceName'),
      value: (r) => r.name,
      cell: (r) => (
        <Button
          variant="ghost"
          size="1"
          onClick={() => setOpen(r.id)}
          style={{ maxWidth: '100%' }}
          draggable={mayMove}
          title={mayMove ? t('fleet.dragToGroup') : undefined}
          onDragStart={(e: DragEvent) => {
            e.dataTransfer.setData(DRAG_TYPE, JSON.stringify(r));
            e.dataTransfer.effectAllowed = 'move';
          }}
        >
          <Ellipsis value={r.name} />
        </Button>
      ),
      sortable: true,
      width: 170,
    },
    { id: 'sn', header: t('fleet.sn'), value: (r) => r.sn, sortable: true, width: 150 },
    { id: 'product', header: t('fleet.product'), value: (r) => r.productName, width: 140 },
    { id: 'group', header: t('fleet.group'), value: (r) => r.groupName, width: 130 },
    {
      id: 'status',
      header: t('fleet.status'),
      value: (r) => t(`fleet.statuses.${r.status}`),
      cell: (r) => <Badge color={r.status === 'online' ? 'green' : 'gray'}>{t(`fleet.statuses.${r.status}`)}</Badge>,
      sortable: true,
      width: 80,
    },
  ];

  return (
    <Flex gap="3" align="start" className="grouping">
      <Card className="group-tree" aria-label={t('fleet.groupTree')}>
        <Text as="div" size="2" weight="bold" mb="2">
          {t('fleet.groupTree')}
        </Text>
        <div role="tree" aria-label={t('fleet.groupTree')}>
          <GroupEntry label={t('fleet.allDevices')} count={all} depth={0} active={selected === null} onSelect={() => setSelected(null)} />
          {counted.map((n) => (
            <GroupBranch
              key={n.id}
              node={n}
              depth={0}
              selected={selected}
              onSelect={setSelected}
              onDropDevice={mayMove ? (row, groupId) => void moveTo([row], groupId) : undefined}
            />
          ))}
        </div>
        {tree.data?.length === 0 && (
          <Text as="div" size="2" color="gray">
            {t('fleet.noGroups')}
          </Text>
        )}
      </Card>
      <div className="group-devices">
        <Text as="div" size="3" weight="bold" mb="2" data-testid="grouping-title">
          {nameOf(selected)}
        </Text>
        <ListPage<DeviceRow>
          queryKey={GROUPED}
          route="device.list"
          exportName={`${t('menu.deviceGroup')}-${nameOf(selected)}`}
          columns={columns}
          params={selected ? { groupId: selected } : {}}
          defaultSort={{ sort: 'createTime', order: 'desc' }}
          filters={[
            { name: 'name', label: t('fleet.deviceName') },
            { name: 'sn', label: t('fleet.sn') },
          ]}
          actions={[
            {
              label: t('fleet.moveToGroup'),
              permission: devicePerm.deviceEdit,
              select: 'some',
              variant: 'soft',
              onClick: (rows) => setMoving(rows),
            },
          ]}
          rowActions={
            mayMove
              ? (row) => <PermittedRowButton permission={devicePerm.deviceEdit} label={t('fleet.move')} onClick={() => setMoving([row])} />
              : undefined
          }
        />
      </div>
      <MoveDialog
        rows={moving}
        groups={counted}
        onClose={() => setMoving(null)}
        onMove={async (groupId) => {
          const rows = moving ?? [];
          setMoving(null);
          return moveTo(rows, groupId);
        }}
      />
      <DeviceDetail id={open} onClose={() => setOpen(null)} />
    </Flex>
  );
}

function GroupEntry({
  label,
  type,
  count,
  depth,
  active,
  expanded,
  onToggle,
  onSelect,
  onDropDevice,
}: {
  label: string;
  type?: string;
  count: Counted;
  depth: number;
  active: boolean;
  expanded?: boolean;
  onToggle?: () => void;
  onSelect: () => void;
  onDropDevice?: (row: DeviceRow) => void;
}) {
  const { t } = useTranslation();
  const [over, setOver] = useState(false);
  const online = rate(count);
  return (
    <div
      role="treeitem"
      aria-selected={active}
      aria-expanded={expanded}
      className="group-entry"
      data-active={active || undefined}
      data-drop={over || undefined}
      style={{ paddingLeft: depth * 16 }}
      onDragOver={(e) => {
        if (!onDropDevice || !e.dataTransfer.types.includes(DRAG_TYPE)) return;
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        setOver(false);
        const data = e.dataTransfer.getData(DRAG_TYPE);
        if (!onDropDevice || !data) return;
        e.preventDefault();
        onDropDevice(JSON.parse(data) as DeviceRow);
      }}
    >
      {onToggle ? (
        <button type="button" className="group-toggle" aria-label={t('common.expand')} onClick={onToggle}>
          {expanded ? <ChevronDownIcon /> : <ChevronRightIcon />}
        </button>
      ) : (
        <span className="group-toggle" />
      )}
      <div className="group-main">
        <button type="button" className="group-name" onClick={onSelect}>
          <Ellipsis value={label} />
        </button>
        <div className="group-meta">
          {type && (
            <Badge size="1" variant="soft" color="gray">
              {t(`groupType.${type}`)}
            </Badge>
          )}
          <Text size="1" color="gray" className="group-count" title={t('fleet.groupCountTitle')}>
            {t('fleet.groupCount', { total: count.total, rate: online === null ? '--' : `${online}%` })}
          </Text>
        </div>
      </div>
    </div>
  );
}

function GroupBranch({
  node,
  depth,
  selected,
  onSelect,
  onDropDevice,
}: {
  node: CountedNode;
  depth: number;
  selected: string | null;
  onSelect: (id: string) => void;
  onDropDevice?: (row: DeviceRow, groupId: string) => void;
}) {
  const [expanded, setExpanded] = useState(true);
  const hasChildren = node.children.length > 0;
  return (
    <>
      <GroupEntry
        label={node.name}
        type={node.type}
        count={node.count}
        depth={depth + 1}
        active={selected === node.id}
        expanded={hasChildren ? expanded : undefined}
        onToggle={hasChildren ? () => setExpanded(!expanded) : undefined}
        onSelect={() => onSelect(node.id)}
        onDropDevice={onDropDevice && ((row) => onDropDevice(row, node.id))}
      />
      {expanded &&
        node.children.map((c) => (
          <GroupBranch key={c.id} node={c} depth={depth + 1} selected={selected} onSelect={onSelect} onDropDevice={onDropDevice} />
        ))}
    </>
  );
}

/** Picks the group the chosen devices move to. */
function MoveDialog({
  rows,
  groups,
  onClose,
  onMove,
}: {
  rows: DeviceRow[] | null;
  groups: CountedNode[];
  onClose: () => void;
  onMove: (groupId: string) => Promise<unknown>;
}) {
  const { t } = useTranslation();
  const [groupId, setGroupId] = useState('');
  const options: Array<{ value: string; label: string }> = [];
  const walk = (nodes: CountedNode[], depth: number) => {
    for (const n of nodes) {
      options.push({ value: n.id, label: `${'\u3000'.repeat(depth)}${n.name}` });
      walk(n.children, depth + 1);
    }
  };
  walk(groups, 0);
  const names = (rows ?? []).map((r) => r.name);
  return (
    <Dialog.Root open={rows !== null} onOpenChange={(o) => !o && onClose()}>
      <Dialog.Content maxWidth="460px" aria-describedby={undefined}>
        <Dialog.Title>
          {names.length === 1 ? t('fleet.moveOneTitle', { name: names[0] }) : t('fleet.moveManyTitle', { count: names.length })}
        </Dialog.Title>
        <Field label={t('fleet.targetGroup')} required>
          <SelectInput value={groupId} onChange={setGroupId} options={options} placeholder={t('common.selectPlaceholder')} name="groupId" />
        </Field>
        <Flex gap="3" justify="end" mt="4">
          <Button variant="soft" color="gray" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button disabled={!groupId} onClick={() => void onMove(groupId).then(() => setGroupId(''))}>
            {t('fleet.move')}
          </Button>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}
