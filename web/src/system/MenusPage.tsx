import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TextField } from '@radix-ui/themes';
import { limits } from '@iot/contracts';
import { menuTypes, type MenuNode } from '@iot/contracts/identity/menu.ts';
import { perm } from '@iot/contracts/identity/permissions.ts';
import { callRoute } from '../api/client.ts';
import { useEntryTitle } from '../shell/Layout.tsx';
import { crudActions, labelled, PermittedRowButton, useListChange, useListDelete, useRecordDialog } from '../ui/crud.tsx';
import { Field, FormDialog, checkBody } from '../ui/form.tsx';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput } from '../ui/widgets.tsx';
import { treeOptions, useMenuTree } from './lookups.ts';

const KEY = 'menus';
const ROOT = '__root__';
const empty = {
  id: '',
  type: 'menu',
  name: '',
  routerName: '',
  icon: '',
  permission: '',
  path: '',
  component: '',
  sort: '0',
  parentId: ROOT,
};
type Editing = { row: MenuNode | null; parentId: string | null } | null;

export const menuPayload = (v: typeof empty, creating: boolean) => {
  const body = {
    type: v.type,
    name: v.name,
    routerName: v.routerName || null,
    icon: v.icon || null,
    permission: v.permission || null,
    path: v.path,
    component: v.component || null,
    sort: v.sort === '' ? 0 : Number(v.sort),
    parentId: v.parentId === ROOT ? null : v.parentId,
  };
  return creating ? body : { id: v.id, ...body };
};

export const menuRules = (t: (k: string, o?: Record<string, unknown>) => string) => ({
  name: t('validation.maxLength', { field: t('menu.fields.name'), max: limits.menuName.max }),
  permission: t('validation.permission'),
  sort: t('validation.sort'),
});

/** Swaps a node with its neighbour among its siblings and answers the new sort of every sibling. */
export function reorder(siblings: MenuNode[], id: string, direction: -1 | 1) {
  const list = [...siblings];
  const index = list.findIndex((n) => n.id === id);
  const other = index + direction;
  if (index < 0 || other < 0 || other >= list.length) return null;
  [list[index], list[other]] = [list[other]!, list[index]!];
  return list.map((n, i) => ({ id: n.id, sort: i * 10 }));
}

function MenuDialog({ editing, onClose }: { editing: Editing; onClose: () => void }) {
  const { t } = useTranslation();
  const title = useEntryTitle();
  const tree = useMenuTree();
  const creating = editing?.row === null;
  const { form, run, done, dialog } = useRecordDialog({
    editing,
    empty,
    queryKey: KEY,
    onClose,
    valuesOf: (e) => {
      const r = e?.row;
      return r
        ? {
            id: r.id,
            type: r.type,
            name: r.name,
            routerName: r.routerName ?? '',
            icon: r.icon ?? '',
            permission: r.permission ?? '',
            path: r.path,
            component: r.component ?? '',
            sort: String(r.sort),
            parentId: r.parentId ?? ROOT,
          }
        : { ...empty, parentId: e?.parentId ?? ROOT };
    },
  });
  const submit = async () => {
    const checked = checkBody(creating ? 'menu.create' : 'menu.update', menuPayload(form.values, creating), t, menuRules(t));
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute(checked.route, { body: checked.data });
      await done(t(creating ? 'common.created' : 'common.saved'));
    });
  };
  const v = form.values;
  const text = (name: 'name' | 'routerName' | 'icon' | 'permission' | 'path' | 'component' | 'sort', placeholder?: string) => (
    <TextField.Root
      {...form.input(name)}
      type={name === 'sort' ? 'number' : 'text'}
      placeholder={placeholder ?? t('common.inputPlaceholder', { field: t(`menu.fields.${name}`) })}
    />
  );
  const parents = [
    { value: ROOT, label: t('menu.fields.root') },
    ...treeOptions(tree.data ?? [], (n) => title(n), 1).filter((o) => o.value !== v.id),
  ];
  return (
    <FormDialog {...dialog} title={t(creating ? 'menu.fields.add' : 'menu.fields.edit')} onSubmit={() => void submit()} width="640px">
      <div className="form-grid two">
        <Field label={t('menu.fields.parent')}>
          <SelectInput {...form.select('parentId')} options={parents} />
        </Field>
        <Field label={t('menu.fields.type')} required error={form.errors.type}>
          <SelectInput {...form.select('type')} options={labelled(t, 'menuType', menuTypes)} />
        </Field>
        <Field
          label={t('menu.fields.name')}
          required
          error={form.errors.name}
          hint={t('menu.fields.nameHint', { max: limits.menuName.max })}
        >
          {text('name')}
        </Field>
        <Field label={t('menu.fields.path')} required error={form.errors.path}>
          {text('path', '/system/user')}
        </Field>
        <Field label={t('menu.fields.permission')} error={form.errors.permission} hint={t('menu.fields.permissionHint')}>
          {text('permission', 'system:user:list')}
        </Field>
        <Field label={t('menu.fields.routerName')} error={form.errors.routerName}>
          {text('routerName')}
        </Field>
        <Field label={t('menu.fields.icon')} error={form.errors.icon}>
          {text('icon')}
        </Field>
        <Field label={t('menu.fields.component')} error={form.errors.component}>
          {text('component')}
        </Field>
        <Field label={t('menu.fields.sort')} error={form.errors.sort}>
          {text('sort')}
        </Field>
      </div>
    </FormDialog>
  );
}

export function MenusPage() {
  const { t } = useTranslation();
  const title = useEntryTitle();
  const change = useListChange(KEY);
  const deleteRows = useListDelete(KEY);
  const tree = useMenuTree();
  const [editing, setEditing] = useState<Editing>(null);
  const siblingsOf = (nodes: MenuNode[], row: MenuNode): MenuNode[] | null => {
    if (nodes.some((n) => n.id === row.id)) return nodes;
    for (const n of nodes) {
      const found = siblingsOf(n.children, row);
      if (found) return found;
    }
    return null;
  };
  const move = async (row: MenuNode, direction: -1 | 1) => {
    const items = reorder(siblingsOf(tree.data ?? [], row) ?? [], row.id, direction);
    if (!items) return;
    await change(() => callRoute('menu.reorder', { body: { items } }), t('common.success'));
  };
  const remove = (row: MenuNode) =>
    deleteRows(t('menu.fields.deleteConfirm', { name: title(row) }), () => callRoute('menu.delete', { query: { id: row.id } }));
  const columns: ListColumn<MenuNode>[] = [
    { id: 'title', header: t('menu.fields.name'), value: (r) => title(r), width: 220 },
    { id: 'type', header: t('menu.fields.type'), value: (r) => t(`menuType.${r.type}`), width: 90 },
    { id: 'path', header: t('menu.fields.path'), value: (r) => r.path, width: 170 },
    { id: 'permission', header: t('menu.fields.permission'), value: (r) => r.permission, width: 170 },
    { id: 'icon', header: t('menu.fields.icon'), value: (r) => r.icon, width: 80 },
    { id: 'sort', header: t('menu.fields.sort'), value: (r) => r.sort, width: 60 },
  ];
  return (
    <>
      <ListPage<MenuNode>
        queryKey={KEY}
        route="menu.list"
        exportName={t('menu.menuManage')}
        subRows={(r) => r.children}
        columns={columns}
        actions={crudActions<MenuNode>(
          t,
          { add: perm.menuAdd, edit: perm.menuEdit },
          { add: () => setEditing({ row: null, parentId: null }), edit: (row) => setEditing({ row, parentId: null }) },
        )}
        rowActions={(row) => (
          <>
            <PermittedRowButton permission={perm.menuEdit} label={t('menu.fields.up')} onClick={() => void move(row, -1)} />
            <PermittedRowButton permission={perm.menuEdit} label={t('menu.fields.down')} onClick={() => void move(row, 1)} />
            {row.type === 'menu' && (
              <PermittedRowButton
                permission={perm.menuAdd}
                label={t('menu.fields.addChild')}
                onClick={() => setEditing({ row: null, parentId: row.id })}
              />
            )}
            <PermittedRowButton permission={perm.menuEdit} label={t('common.edit')} onClick={() => setEditing({ row, parentId: null })} />
            {!row.builtin && (
              <PermittedRowButton permission={perm.menuDelete} label={t('common.delete')} danger onClick={() => void remove(row)} />
            )}
          </>
        )}
      />
      <MenuDialog editing={editing} onClose={() => setEditing(null)} />
    </>
  );
}
