import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TextField } from '@radix-ui/themes';
import { groupTypes } from '@iot/contracts';
import { type GroupNode } from '@iot/contracts/identity/group.ts';
import { perm } from '@iot/contracts/identity/permissions.ts';
import { callRoute } from '../api/client.ts';
import { createdAtColumn, crudActions, labelled, PermittedRowButton, useListDelete, useRecordDialog } from '../ui/crud.tsx';
import { Field, FormDialog, checkBody } from '../ui/form.tsx';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput } from '../ui/widgets.tsx';
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
  const groups = useGroups();
  const creating = editing?.row === null;
  const { form, run, done, dialog } = useRecordDialog({
    editing,
    empty,
    queryKey: KEY,
    onClose,
    valuesOf: (e) => {
      const row = e?.row;
      return row
        ? {
            id: row.id,
            name: row.name,
            type: row.type,
            location: row.location ?? '',
            sort: String(row.sort),
            parentId: row.parentId ?? ROOT,
          }
        : { ...empty, parentId: e?.parentId ?? ROOT };
    },
  });
  const submit = async () => {
    const checked = checkBody(creating ? 'group.create' : 'group.update', groupPayload(form.values, creating), t, {
      name: t('validation.maxLength', { field: t('group.name'), max: 64 }),
      'type.empty': t('validation.selectRequired'),
      sort: t('validation.sort'),
    });
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute(checked.route, { body: checked.data });
      await done(t(creating ? 'common.created' : 'common.saved'));
    });
  };
  const parents = [
    { value: ROOT, label: t('group.root') },
    ...treeOptions(groups.data ?? [], (g) => g.name, 1).filter((o) => o.value !== form.values.id),
  ];
  return (
    <FormDialog {...dialog} title={t(creating ? 'group.add' : 'group.edit')} onSubmit={() => void submit()}>
      <Field label={t('group.parent')} hint={t('group.parentHint')}>
        <SelectInput {...form.select('parentId')} options={parents} />
      </Field>
      <Field label={t('group.name')} required error={form.errors.name}>
        <TextField.Root {...form.input('name')} placeholder={t('common.inputPlaceholder', { field: t('group.name') })} />
      </Field>
      <Field label={t('group.type')} required error={form.errors.type}>
        <SelectInput {...form.select('type')} placeholder={t('common.selectPlaceholder')} options={labelled(t, 'groupType', groupTypes)} />
      </Field>
      <Field label={t('group.location')} error={form.errors.location}>
        <TextField.Root {...form.input('location')} placeholder={t('common.inputPlaceholder', { field: t('group.location') })} />
      </Field>
      <Field label={t('group.sort')} error={form.errors.sort}>
        <TextField.Root {...form.input('sort')} type="number" min={0} />
      </Field>
    </FormDialog>
  );
}

export function GroupsPage() {
  const { t } = useTranslation();
  const deleteRows = useListDelete(KEY);
  const [editing, setEditing] = useState<Editing>(null);
  const remove = (row: GroupNode) =>
    deleteRows(t('group.deleteConfirm', { name: row.name }), () => callRoute('group.delete', { query: { id: row.id } }));
  const columns: ListColumn<GroupNode>[] = [
    { id: 'name', header: t('group.name'), value: (r) => r.name, width: 260 },
    { id: 'type', header: t('group.type'), value: (r) => t(`groupType.${r.type}`), width: 120 },
    { id: 'location', header: t('group.location'), value: (r) => r.location, width: 200 },
    { id: 'sort', header: t('group.sort'), value: (r) => r.sort, width: 70 },
    createdAtColumn(t('common.createdAt'), false),
  ];
  return (
    <>
      <ListPage<GroupNode>
        queryKey={KEY}
        route="group.tree"
        exportName={t('menu.group')}
        subRows={(r) => r.children}
        columns={columns}
        filters={[
          { name: 'name', label: t('group.name') },
          {
            name: 'type',
            label: t('group.type'),
            type: 'select',
            options: labelled(t, 'groupType', groupTypes),
          },
        ]}
        actions={crudActions<GroupNode>(
          t,
          { add: perm.groupAdd, edit: perm.groupEdit, delete: perm.groupDelete },
          {
            add: () => setEditing({ row: null, parentId: null }),
            edit: (row) => setEditing({ row, parentId: null }),
            remove: (rows) => remove(rows[0]!),
            removeSelect: 'one',
          },
        )}
        rowActions={(row) => (
          <>
            <PermittedRowButton
              permission={perm.groupAdd}
              label={t('group.addChild')}
              onClick={() => setEditing({ row: null, parentId: row.id })}
            />
            <PermittedRowButton permission={perm.groupEdit} label={t('common.edit')} onClick={() => setEditing({ row, parentId: null })} />
            <PermittedRowButton permission={perm.groupDelete} label={t('common.delete')} danger onClick={() => void remove(row)} />
          </>
        )}
      />
      <GroupDialog editing={editing} onClose={() => setEditing(null)} />
    </>
  );
}
