import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog, Flex, Button, TextArea, TextField } from '@radix-ui/themes';
import { PlusIcon } from '@radix-ui/react-icons';
import { enabledStatuses } from '@iot/contracts/identity/common.ts';
import { perm } from '@iot/contracts/identity/permissions.ts';
import type { z } from 'zod';
import type { dictItemRow, dictTypeRow } from '@iot/contracts/identity/dict.ts';
import { callRoute } from '../api/client.ts';
import { createdAtColumn, crudActions, labelled, PermittedRowButton, useListDelete, useRecordDialog, statusColumn } from '../ui/crud.tsx';
import { Field, FormDialog, checkBody } from '../ui/form.tsx';
import { ListPage, NEWEST_FIRST, type ListColumn } from '../ui/ListPage.tsx';
import { RowButton, SelectInput } from '../ui/widgets.tsx';

type TypeRow = z.infer<typeof dictTypeRow>;
type ItemRow = z.infer<typeof dictItemRow>;
const TYPES = 'dictTypes';
const ITEMS = 'dictItems';

const typeEmpty = { id: '', code: '', name: '', status: 'enabled', remark: '' };
const itemEmpty = { itemId: '', label: '', value: '', sort: '0', status: 'enabled', remark: '' };

function TypeDialog({ editing, onClose }: { editing: TypeRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const { form, run, done, dialog } = useRecordDialog({
    editing,
    empty: typeEmpty,
    queryKey: TYPES,
    onClose,
    valuesOf: (e) => (e && e !== 'new' ? { ...e, remark: e.remark ?? '' } : typeEmpty),
  });
  const submit = async () => {
    const { id, ...rest } = form.values;
    const body = { ...rest, remark: rest.remark || null };
    const checked = checkBody(creating ? 'dict.create' : 'dict.update', creating ? body : { id, ...body }, t, {
      code: t('validation.dictCode'),
      name: t('validation.maxLength', { field: t('dict.name'), max: 64 }),
    });
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute(checked.route, { body: checked.data });
      await done(t(creating ? 'common.created' : 'common.saved'));
    });
  };
  return (
    <FormDialog {...dialog} title={t(creating ? 'dict.add' : 'dict.edit')} onSubmit={() => void submit()}>
      <Field label={t('dict.code')} required error={form.errors.code} hint={t('dict.codeHint')}>
        <TextField.Root {...form.input('code')} />
      </Field>
      <Field label={t('dict.name')} required error={form.errors.name}>
        <TextField.Root {...form.input('name')} />
      </Field>
      <Field label={t('dict.status')} required>
        <SelectInput {...form.select('status')} options={labelled(t, 'status', enabledStatuses)} />
      </Field>
      <Field label={t('dict.remark')}>
        <TextArea {...form.input('remark')} />
      </Field>
    </FormDialog>
  );
}

function ItemDialog({ type, editing, onClose }: { type: TypeRow; editing: ItemRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const { form, run, done, dialog } = useRecordDialog({
    editing,
    empty: itemEmpty,
    queryKey: ITEMS,
    onClose,
    valuesOf: (e) =>
      e && e !== 'new'
        ? {
            itemId: e.id,
            label: e.label,
            value: e.value,
            sort: String(e.sort),
            status: e.status,
            remark: e.remark ?? '',
          }
        : itemEmpty,
  });
  const submit = async () => {
    const { itemId, ...rest } = form.values;
    const body = { typeId: type.id, ...rest, remark: rest.remark || null };
    const checked = checkBody(creating ? 'dict.addItem' : 'dict.updateItem', creating ? body : { ...body, itemId }, t, {
      sort: t('validation.sort'),
    });
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute(checked.route, { body: checked.data });
      await done(t(creating ? 'common.created' : 'common.saved'));
    });
  };
  return (
    <FormDialog {...dialog} title={t(creating ? 'dict.addItem' : 'dict.editItem')} onSubmit={() => void submit()}>
      <Field label={t('dict.label')} required error={form.errors.label}>
        <TextField.Root {...form.input('label')} />
      </Field>
      <Field label={t('dict.value')} required error={form.errors.value}>
        <TextField.Root {...form.input('value')} />
      </Field>
      <Field label={t('dict.sort')} error={form.errors.sort}>
        <TextField.Root {...form.input('sort')} type="number" />
      </Field>
      <Field label={t('dict.status')} required>
        <SelectInput {...form.select('status')} options={labelled(t, 'status', enabledStatuses)} />
      </Field>
    </FormDialog>
  );
}

function ItemsDialog({ type, onClose }: { type: TypeRow | null; onClose: () => void }) {
  const { t } = useTranslation();
  const deleteRows = useListDelete(ITEMS);
  const [editing, setEditing] = useState<ItemRow | 'new' | null>(null);
  if (!type) return null;
  const remove = (row: ItemRow) =>
    deleteRows(t('dict.deleteItemConfirm', { name: row.label }), () =>
      callRoute('dict.removeItem', { query: { typeId: type.id, itemId: row.id } }),
    );
  const columns: ListColumn<ItemRow>[] = [
    { id: 'label', header: t('dict.label'), value: (r) => r.label, sortable: true, width: 160 },
    { id: 'value', header: t('dict.value'), value: (r) => r.value, sortable: true, width: 160 },
    { id: 'sort', header: t('dict.sort'), value: (r) => r.sort, sortable: true, width: 70 },
    statusColumn(t, t('dict.status'), 80),
  ];
  return (
    <Dialog.Root open onOpenChange={(o) => !o && onClose()}>
      <Dialog.Content maxWidth="860px" aria-describedby={undefined}>
        <Dialog.Title>{t('dict.itemsOf', { name: type.name })}</Dialog.Title>
        <ListPage<ItemRow>
          queryKey={ITEMS}
          route="dict.items"
          params={{ typeId: type.id }}
          exportName={`${t('menu.dictionary')}-${type.code}`}
          selectable={false}
          columns={columns}
          defaultSort={{ sort: 'sort', order: 'asc' }}
          actions={[
            { label: t('common.add'), icon: <PlusIcon />, permission: perm.dictAdd, select: 'none', onClick: () => setEditing('new') },
          ]}
          rowActions={(row) => (
            <>
              <PermittedRowButton permission={perm.dictEdit} label={t('common.edit')} onClick={() => setEditing(row)} />
              <PermittedRowButton permission={perm.dictDelete} label={t('common.delete')} danger onClick={() => void remove(row)} />
            </>
          )}
        />
        <Flex justify="end" mt="3">
          <Dialog.Close>
            <Button variant="soft" color="gray">
              {t('common.close')}
            </Button>
          </Dialog.Close>
        </Flex>
        <ItemDialog type={type} editing={editing} onClose={() => setEditing(null)} />
      </Dialog.Content>
    </Dialog.Root>
  );
}

export function DictionariesPage() {
  const { t } = useTranslation();
  const deleteRows = useListDelete(TYPES);
  const [editing, setEditing] = useState<TypeRow | 'new' | null>(null);
  const [items, setItems] = useState<TypeRow | null>(null);
  const remove = (rows: TypeRow[]) =>
    deleteRows(t('dict.deleteConfirm', { names: rows.map((r) => r.name).join(', ') }), async () => {
      for (const row of rows) await callRoute('dict.delete', { query: { id: row.id } });
    });
  const columns: ListColumn<TypeRow>[] = [
    { id: 'code', header: t('dict.code'), value: (r) => r.code, sortable: true, width: 180 },
    { id: 'name', header: t('dict.name'), value: (r) => r.name, sortable: true, width: 180 },
    statusColumn(t, t('dict.status'), 90),
    { id: 'remark', header: t('dict.remark'), value: (r) => r.remark, width: 240 },
    createdAtColumn(t('common.createdAt')),
  ];
  return (
    <>
      <ListPage<TypeRow>
        queryKey={TYPES}
        route="dict.list"
        exportName={t('menu.dictionary')}
        columns={columns}
        defaultSort={NEWEST_FIRST}
        filters={[
          { name: 'name', label: t('dict.name') },
          { name: 'code', label: t('dict.code') },
        ]}
        actions={crudActions<TypeRow>(
          t,
          { add: perm.dictAdd, edit: perm.dictEdit, delete: perm.dictDelete },
          { add: () => setEditing('new'), edit: setEditing, remove },
        )}
        rowActions={(row) => (
          <>
            <RowButton label={t('dict.items')} onClick={() => setItems(row)} />
            <PermittedRowButton permission={perm.dictEdit} label={t('common.edit')} onClick={() => setEditing(row)} />
            <PermittedRowButton permission={perm.dictDelete} label={t('common.delete')} danger onClick={() => void remove([row])} />
          </>
        )}
      />
      <TypeDialog editing={editing} onClose={() => setEditing(null)} />
      <ItemsDialog type={items} onClose={() => setItems(null)} />
    </>
  );
}
