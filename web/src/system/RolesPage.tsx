import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Text, TextArea, TextField } from '@radix-ui/themes';
import { perm } from '@iot/contracts/identity/permissions.ts';
import { type RoleRow } from '@iot/contracts/identity/role.ts';
import { ApiError, messageOf, callRoute } from '../api/client.ts';
import { notice } from '../ui/feedback.tsx';
import { createdAtColumn, crudActions, PermittedRowButton, useListDelete, useRecordDialog } from '../ui/crud.tsx';
import { Field, FormDialog, checkBody } from '../ui/form.tsx';
import { ListPage, NEWEST_FIRST, type ListColumn } from '../ui/ListPage.tsx';
import { useMenuTree } from './lookups.ts';
import { MenuChecklist, withAncestors } from './MenuChecklist.tsx';

const KEY = 'roles';
const empty = { id: '', name: '', remark: '', menuIds: [] as string[] };
type Editing = { row: RoleRow | null; grantOnly: boolean } | null;

function RoleDialog({ editing, onClose }: { editing: Editing; onClose: () => void }) {
  const { t } = useTranslation();
  const menus = useMenuTree();
  const creating = editing?.row === null;
  const grantOnly = editing?.grantOnly === true;
  const { form, run, done, dialog } = useRecordDialog({
    editing,
    empty,
    queryKey: KEY,
    onClose,
    valuesOf: (e) => {
      const row = e?.row;
      return row ? { id: row.id, name: row.name, remark: row.remark ?? '', menuIds: row.menuIds } : empty;
    },
  });
  const submit = async () => {
    const menuIds = withAncestors(menus.data ?? [], form.values.menuIds);
    const rules = { name: t('validation.maxLength', { field: t('role.name'), max: 32 }) };
    const checked = grantOnly
      ? ({ ok: true, route: null } as const)
      : creating
        ? checkBody('role.create', { name: form.values.name, remark: form.values.remark || null, menuIds }, t, rules)
        : checkBody('role.update', { id: form.values.id, name: form.values.name, remark: form.values.remark || null }, t, rules);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(
      async () => {
        if (!grantOnly) {
          const check = await callRoute('role.check', {
            query: { name: form.values.name.trim(), id: creating ? undefined : form.values.id },
          }).catch(() => ({ available: true }));
          if (!check.available) {
            form.setErrors({ name: t('validation.roleExists') });
            return;
          }
        }
        if (checked.route === 'role.create') await callRoute(checked.route, { body: checked.data });
        else {
          if (checked.route === 'role.update') await callRoute(checked.route, { body: checked.data });
          await callRoute('role.grant', { body: { id: form.values.id, menuIds } });
        }
        await done(t(creating ? 'common.created' : 'common.saved'));
      },
      (error) => {
        // Another role took the name since the check: say so on the field, as the check would have.
        if (error instanceof ApiError && error.code === 'ROLE_EXISTS') form.setErrors({ name: error.message });
        else notice.error(messageOf(error));
      },
    );
  };
  const title = grantOnly ? t('role.grantTitle', { name: editing?.row?.name ?? '' }) : t(creating ? 'role.add' : 'role.edit');
  return (
    <FormDialog {...dialog} title={title} onSubmit={() => void submit()} width="600px">
      {!grantOnly && (
        <>
          <Field label={t('role.name')} required error={form.errors.name}>
            <TextField.Root {...form.input('name')} placeholder={t('common.inputPlaceholder', { field: t('role.name') })} />
          </Field>
          <Field label={t('role.remark')} error={form.errors.remark}>
            <TextArea {...form.input('remark')} />
          </Field>
        </>
      )}
      <Field label={t('role.menus')}>
        {menus.error ? (
          <Text size="2" color="red">
            {messageOf(menus.error)}
          </Text>
        ) : (
          <MenuChecklist tree={menus.data ?? []} value={form.values.menuIds} onChange={(ids) => form.set('menuIds', ids)} />
        )}
      </Field>
    </FormDialog>
  );
}

export function RolesPage() {
  const { t } = useTranslation();
  const deleteRows = useListDelete(KEY);
  const [editing, setEditing] = useState<Editing>(null);
  const remove = (rows: RoleRow[]) =>
    rows.some((r) => r.builtin)
      ? Promise.resolve(notice.error(t('role.builtinNotDeletable')))
      : deleteRows(t('role.deleteConfirm', { names: rows.map((r) => r.name).join(', ') }), async () => {
          for (const row of rows) await callRoute('role.delete', { query: { id: row.id } });
        });
  const columns: ListColumn<RoleRow>[] = [
    { id: 'name', header: t('role.name'), value: (r) => r.name, sortable: true, width: 180 },
    { id: 'remark', header: t('role.remark'), value: (r) => r.remark, width: 280 },
    { id: 'menus', header: t('role.menuCount'), value: (r) => r.menuIds.length, width: 100 },
    { id: 'builtin', header: t('role.kind'), value: (r) => t(r.builtin ? 'role.kindBuiltin' : 'role.kindCustom'), width: 100 },
    createdAtColumn(t('common.createdAt')),
  ];
  return (
    <>
      <ListPage<RoleRow>
        queryKey={KEY}
        route="role.list"
        exportName={t('menu.role')}
        columns={columns}
        defaultSort={NEWEST_FIRST}
        filters={[{ name: 'name', label: t('role.name') }]}
        actions={crudActions<RoleRow>(
          t,
          { add: perm.roleAdd, edit: perm.roleEdit, delete: perm.roleDelete },
          {
            add: () => setEditing({ row: null, grantOnly: false }),
            edit: (row) => setEditing({ row, grantOnly: false }),
            remove,
          },
        )}
        rowActions={(row) => (
          <>
            <PermittedRowButton permission={perm.roleGrant} label={t('role.grant')} onClick={() => setEditing({ row, grantOnly: true })} />
            <PermittedRowButton permission={perm.roleEdit} label={t('common.edit')} onClick={() => setEditing({ row, grantOnly: false })} />
            {!row.builtin && (
              <PermittedRowButton permission={perm.roleDelete} label={t('common.delete')} danger onClick={() => void remove([row])} />
            )}
          </>
        )}
      />
      <RoleDialog editing={editing} onClose={() => setEditing(null)} />
    </>
  );
}
