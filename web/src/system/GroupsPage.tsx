import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TextField } from '@radix-ui/themes';
import { PlusIcon } from '@radix-ui/react-icons';
import { groupTypes } from '@iot/contracts';
import { groupCreateBody, groupUpdateBody, type GroupNode } from '@iot/contracts/identity/group.ts';
import { perm } from '@iot/contracts/identity/permissions.ts';
import { api, messageOf } from '../api/client.ts';
import { endpoints } from '../api/endpoints.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { confirm, notice } from '../ui/feedback.tsx';
import { Field, FormDialog, useForm, validate } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, useRefresh, type ListColumn } from '../ui/ListPage.tsx';
import { RowButton, SelectInput } from '../ui/widgets.tsx';
import { treeOptions, useGroups } from './lookups.ts';

const KEY = 'groups';
const ROOT = '__root__';
const empty = { id: '', name: '', type: '', location: '', sort: '0', parentId: ROOT };
type Editing = { row: GroupNode | null; parentId: string | null } | null;

export const groupPayload = (v: typeof empty, creating: boolean) => {
  const body = {
    name: v.name,
    type: v.type,
    location: v.location || null,
    sort: v.sort === '' ? 0 : Number(v.sort),
    parentId: v.parentId === ROOT ? null : v.parentId,
  };
  return creating ? body : { id: v.id, ...body };
};

function GroupDialog({ editing, onClose }: { editing: Editing; onClose: () => void }) {
  const { t } = useTranslation();
  const refresh = useRefresh(KEY);
  const groups = useGroups();
  const form = useForm(empty);
  const [busy, setBusy] = useState(false);
  const [opened, setOpened] = useState<Editing>(null);
  const creating = editing?.row === null;
  if (editing !== opened) {
    setOpened(editing);
    const row = editing?.row;
    form.reset(
      row
        ? {
            id: row.id,
            name: row.name,
            type: row.type,
            location: row.location ?? '',
            sort: String(row.sort),
            parentId: row.parentId ?? ROOT,
          }
        : { ...empty, parentId: editing?.parentId ?? ROOT },
    );
  }
  const submit = async () => {
    const checked = validate(creating ? groupCreateBody : groupUpdateBody, groupPayload(form.values, creating), t, {
      name: t('validation.maxLength', { field: t('group.name'), max: 64 }),
      'type.empty': t('validation.selectRequired'),
      sort: t('validation.sort'),
    });
    if (!checked.ok) return form.setErrors(checked.errors);
    setBusy(true);
    try {
      if (creating) await api.post(endpoints.group, checked.data);
      else await api.put(endpoints.group, checked.data);
      notice.success(t(creating ? 'common.created' : 'common.saved'));
      form.markSaved();
      await refresh();
      onClose();
    } catch (error) {
      notice.error(messageOf(error));
    } finally {
      setBusy(false);
    }
  };
  const parents = [
    { value: ROOT, label: t('group.root') },
    ...treeOptions(groups.data ?? [], (g) => g.name, 1).filter((o) => o.value !== form.values.id),
  ];
  return (
    <FormDialog
      open={editing !== null}
      title={t(creating ? 'group.add' : 'group.edit')}
      dirty={form.dirty}
      busy={busy}
      onClose={onClose}
      onSubmit={() => void submit()}
    >
      <Field label={t('group.parent')} hint={t('group.parentHint')}>
        <SelectInput name="parentId" value={form.values.parentId} onChange={(v) => form.set('parentId', v)} options={parents} />
      </Field>
      <Field label={t('group.name')} required error={form.errors.name}>
        <TextField.Root
          name="name"
          value={form.values.name}
          placeholder={t('common.inputPlaceholder', { field: t('group.name') })}
          onChange={(e) => form.set('name', e.target.value)}
        />
      </Field>
      <Field label={t('group.type')} required error={form.errors.type}>
        <SelectInput
          name="type"
          value={form.values.type || null}
          placeholder={t('common.selectPlaceholder')}
          onChange={(v) => form.set('type', v)}
          options={groupTypes.map((g) => ({ value: g, label: t(`groupType.${g}`) }))}
        />
      </Field>
      <Field label={t('group.location')} error={form.errors.location}>
        <TextField.Root
          name="location"
          value={form.values.location}
          placeholder={t('common.inputPlaceholder', { field: t('group.location') })}
          onChange={(e) => form.set('location', e.target.value)}
        />
      </Field>
      <Field label={t('group.sort')} error={form.errors.sort}>
        <TextField.Root name="sort" type="number" min={0} value={form.values.sort} onChange={(e) => form.set('sort', e.target.value)} />
      </Field>
    </FormDialog>
  );
}

export function GroupsPage() {
  const { t } = useTranslation();
  const me = useSession();
  const refresh = useRefresh(KEY);
  const [editing, setEditing] = useState<Editing>(null);
  const remove = async (row: GroupNode) => {
    if (!(await confirm({ message: t('group.deleteConfirm', { name: row.name }), danger: true, confirmLabel: t('common.delete') }))) return;
    try {
      await api.delete(endpoints.group, { id: row.id });
      notice.success(t('common.deleted'));
      await refresh();
    } catch (error) {
      notice.error(messageOf(error));
    }
  };
  const columns: ListColumn<GroupNode>[] = [
    { id: 'name', header: t('group.name'), value: (r) => r.name, width: 260 },
    { id: 'type', header: t('group.type'), value: (r) => t(`groupType.${r.type}`), width: 120 },
    { id: 'location', header: t('group.location'), value: (r) => r.location, width: 200 },
    { id: 'sort', header: t('group.sort'), value: (r) => r.sort, width: 70 },
    { id: 'createdAt', header: t('common.createdAt'), value: (r) => formatDate(r.createdAt), width: 110 },
  ];
  return (
    <>
      <ListPage<GroupNode>
        queryKey={KEY}
        endpoint={endpoints.group}
        exportName={t('menu.group')}
        rowId={(r) => r.id}
        subRows={(r) => r.children}
        columns={columns}
        filters={[
          { name: 'name', label: t('group.name') },
          {
            name: 'type',
            label: t('group.type'),
            type: 'select',
            options: groupTypes.map((g) => ({ value: g, label: t(`groupType.${g}`) })),
          },
        ]}
        actions={[
          {
            label: t('common.add'),
            icon: <PlusIcon />,
            permission: perm.groupAdd,
            select: 'none',
            onClick: () => setEditing({ row: null, parentId: null }),
          },
          {
            label: t('common.edit'),
            permission: perm.groupEdit,
            select: 'one',
            variant: 'soft',
            onClick: (rows) => setEditing({ row: rows[0]!, parentId: null }),
          },
          { label: t('common.delete'), permission: perm.groupDelete, select: 'one', color: 'red', onClick: (rows) => remove(rows[0]!) },
        ]}
        rowActions={(row) => (
          <>
            {can(me, perm.groupAdd) && (
              <RowButton label={t('group.addChild')} onClick={() => setEditing({ row: null, parentId: row.id })} />
            )}
            {can(me, perm.groupEdit) && <RowButton label={t('common.edit')} onClick={() => setEditing({ row, parentId: null })} />}
            {can(me, perm.groupDelete) && <RowButton label={t('common.delete')} danger onClick={() => void remove(row)} />}
          </>
        )}
      />
      <GroupDialog editing={editing} onClose={() => setEditing(null)} />
    </>
  );
}
