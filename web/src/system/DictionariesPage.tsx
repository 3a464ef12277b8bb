import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog, Flex, Button, TextArea, TextField } from '@radix-ui/themes';
import { PlusIcon } from '@radix-ui/react-icons';
import { enabledStatuses } from '@iot/contracts/identity/common.ts';
import { dictItemCreateBody, dictItemUpdateBody, dictTypeCreateBody, dictTypeUpdateBody } from '@iot/contracts/identity/dict.ts';
import { perm } from '@iot/contracts/identity/permissions.ts';
import type { z } from 'zod';
import type { dictItemRow, dictTypeRow } from '@iot/contracts/identity/dict.ts';
import { api, messageOf } from '../api/client.ts';
import { endpoints } from '../api/endpoints.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { confirm, notice } from '../ui/feedback.tsx';
import { Field, FormDialog, useForm, validate } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, useRefresh, type ListColumn } from '../ui/ListPage.tsx';
import { RowButton, SelectInput, StatusBadge } from '../ui/widgets.tsx';

type TypeRow = z.infer<typeof dictTypeRow>;
type ItemRow = z.infer<typeof dictItemRow>;
const TYPES = 'dictTypes';
const ITEMS = 'dictItems';

const typeEmpty = { id: '', code: '', name: '', status: 'enabled', remark: '' };
const itemEmpty = { itemId: '', label: '', value: '', sort: '0', status: 'enabled', remark: '' };

function TypeDialog({ editing, onClose }: { editing: TypeRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const refresh = useRefresh(TYPES);
  const form = useForm(typeEmpty);
  const [busy, setBusy] = useState(false);
  const [opened, setOpened] = useState<TypeRow | 'new' | null>(null);
  const creating = editing === 'new';
  if (editing !== opened) {
    setOpened(editing);
    form.reset(editing && editing !== 'new' ? { ...editing, remark: editing.remark ?? '' } : typeEmpty);
  }
  const submit = async () => {
    const { id, ...rest } = form.values;
    const body = { ...rest, remark: rest.remark || null };
    const checked = validate(creating ? dictTypeCreateBody : dictTypeUpdateBody, creating ? body : { id, ...body }, t, {
      code: t('validation.dictCode'),
      name: t('validation.maxLength', { field: t('dict.name'), max: 64 }),
    });
    if (!checked.ok) return form.setErrors(checked.errors);
    setBusy(true);
    try {
      if (creating) await api.post(endpoints.dict, checked.data);
      else await api.put(endpoints.dict, checked.data);
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
  const v = form.values;
  return (
    <FormDialog
      open={editing !== null}
      title={t(creating ? 'dict.add' : 'dict.edit')}
      dirty={form.dirty}
      busy={busy}
      onClose={onClose}
      onSubmit={() => void submit()}
    >
      <Field label={t('dict.code')} required error={form.errors.code} hint={t('dict.codeHint')}>
        <TextField.Root name="code" value={v.code} onChange={(e) => form.set('code', e.target.value)} />
      </Field>
      <Field label={t('dict.name')} required error={form.errors.name}>
        <TextField.Root name="name" value={v.name} onChange={(e) => form.set('name', e.target.value)} />
      </Field>
      <Field label={t('dict.status')} required>
        <SelectInput
          name="status"
          value={v.status}
          onChange={(x) => form.set('status', x)}
          options={enabledStatuses.map((s) => ({ value: s, label: t(`status.${s}`) }))}
        />
      </Field>
      <Field label={t('dict.remark')}>
        <TextArea name="remark" value={v.remark} onChange={(e) => form.set('remark', e.target.value)} />
      </Field>
    </FormDialog>
  );
}

function ItemDialog({ type, editing, onClose }: { type: TypeRow; editing: ItemRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const refresh = useRefresh(ITEMS);
  const form = useForm(itemEmpty);
  const [busy, setBusy] = useState(false);
  const [opened, setOpened] = useState<ItemRow | 'new' | null>(null);
  const creating = editing === 'new';
  if (editing !== opened) {
    setOpened(editing);
    form.reset(
      editing && editing !== 'new'
        ? {
            itemId: editing.id,
            label: editing.label,
            value: editing.value,
            sort: String(editing.sort),
            status: editing.status,
            remark: editing.remark ?? '',
          }
        : itemEmpty,
    );
  }
  const submit = async () => {
    const { itemId, ...rest } = form.values;
    const body = { typeId: type.id, ...rest, remark: rest.remark || null };
    const checked = validate(creating ? dictItemCreateBody : dictItemUpdateBody, creating ? body : { ...body, itemId }, t, {
      sort: t('validation.sort'),
    });
    if (!checked.ok) return form.setErrors(checked.errors);
    setBusy(true);
    try {
      if (creating) await api.post(endpoints.dictItems, checked.data);
      else await api.put(endpoints.dictItems, checked.data);
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
  const v = form.values;
  return (
    <FormDialog
      open={editing !== null}
      title={t(creating ? 'dict.addItem' : 'dict.editItem')}
      dirty={form.dirty}
      busy={busy}
      onClose={onClose}
      onSubmit={() => void submit()}
    >
      <Field label={t('dict.label')} required error={form.errors.label}>
        <TextField.Root name="label" value={v.label} onChange={(e) => form.set('label', e.target.value)} />
      </Field>
      <Field label={t('dict.value')} required error={form.errors.value}>
        <TextField.Root name="value" value={v.value} onChange={(e) => form.set('value', e.target.value)} />
      </Field>
      <Field label={t('dict.sort')} error={form.errors.sort}>
        <TextField.Root name="sort" type="number" value={v.sort} onChange={(e) => form.set('sort', e.target.value)} />
      </Field>
      <Field label={t('dict.status')} required>
        <SelectInput
          name="status"
          value={v.status}
          onChange={(x) => form.set('status', x)}
          options={enabledStatuses.map((s) => ({ value: s, label: t(`status.${s}`) }))}
        />
      </Field>
    </FormDialog>
  );
}

function ItemsDialog({ type, onClose }: { type: TypeRow | null; onClose: () => void }) {
  const { t } = useTranslation();
  const me = useSession();
  const refresh = useRefresh(ITEMS);
  const [editing, setEditing] = useState<ItemRow | 'new' | null>(null);
  if (!type) return null;
  const remove = async (row: ItemRow) => {
    if (!(await confirm({ message: t('dict.deleteItemConfirm', { name: row.label }), danger: true, confirmLabel: t('common.delete') })))
      return;
    try {
      await api.delete(endpoints.dictItems, { typeId: type.id, itemId: row.id });
      notice.success(t('common.deleted'));
      await refresh();
    } catch (error) {
      notice.error(messageOf(error));
    }
  };
  const columns: ListColumn<ItemRow>[] = [
    { id: 'label', header: t('dict.label'), value: (r) => r.label, sortable: true, width: 160 },
    { id: 'value', header: t('dict.value'), value: (r) => r.value, sortable: true, width: 160 },
    { id: 'sort', header: t('dict.sort'), value: (r) => r.sort, sortable: true, width: 70 },
    {
      id: 'status',
      header: t('dict.status'),
      value: (r) => t(`status.${r.status}`),
      cell: (r) => <StatusBadge value={r.status} />,
      width: 80,
    },
  ];
  return (
    <Dialog.Root open onOpenChange={(o) => !o && onClose()}>
      <Dialog.Content maxWidth="860px" aria-describedby={undefined}>
        <Dialog.Title>{t('dict.itemsOf', { name: type.name })}</Dialog.Title>
        <ListPage<ItemRow>
          queryKey={ITEMS}
          endpoint={endpoints.dictItems}
          params={{ typeId: type.id }}
          exportName={`${t('menu.dictionary')}-${type.code}`}
          rowId={(r) => r.id}
          selectable={false}
          columns={columns}
          defaultSort={{ sort: 'sort', order: 'asc' }}
          actions={[
            { label: t('common.add'), icon: <PlusIcon />, permission: perm.dictAdd, select: 'none', onClick: () => setEditing('new') },
          ]}
          rowActions={(row) => (
            <>
              {can(me, perm.dictEdit) && <RowButton label={t('common.edit')} onClick={() => setEditing(row)} />}
              {can(me, perm.dictDelete) && <RowButton label={t('common.delete')} danger onClick={() => void remove(row)} />}
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
  const me = useSession();
  const refresh = useRefresh(TYPES);
  const [editing, setEditing] = useState<TypeRow | 'new' | null>(null);
  const [items, setItems] = useState<TypeRow | null>(null);
  const remove = async (rows: TypeRow[]) => {
    if (
      !(await confirm({
        message: t('dict.deleteConfirm', { names: rows.map((r) => r.name).join(', ') }),
        danger: true,
        confirmLabel: t('common.delete'),
      }))
    )
      return;
    try {
      for (const row of rows) await api.delete(endpoints.dict, { id: row.id });
      notice.success(t('common.deleted'));
      await refresh();
    } catch (error) {
      notice.error(messageOf(error));
    }
  };
  const columns: ListColumn<TypeRow>[] = [
    { id: 'code', header: t('dict.code'), value: (r) => r.code, sortable: true, width: 180 },
    { id: 'name', header: t('dict.name'), value: (r) => r.name, sortable: true, width: 180 },
    {
      id: 'status',
      header: t('dict.status'),
      value: (r) => t(`status.${r.status}`),
      cell: (r) => <StatusBadge value={r.status} />,
      width: 90,
    },
    { id: 'remark', header: t('dict.remark'), value: (r) => r.remark, width: 240 },
    { id: 'createdAt', header: t('common.createdAt'), value: (r) => formatDate(r.createdAt), sortable: true, width: 110 },
  ];
  return (
    <>
      <ListPage<TypeRow>
        queryKey={TYPES}
        endpoint={endpoints.dict}
        exportName={t('menu.dictionary')}
        rowId={(r) => r.id}
        columns={columns}
        defaultSort={{ sort: 'createdAt', order: 'desc' }}
        filters={[
          { name: 'name', label: t('dict.name') },
          { name: 'code', label: t('dict.code') },
        ]}
        actions={[
          { label: t('common.add'), icon: <PlusIcon />, permission: perm.dictAdd, select: 'none', onClick: () => setEditing('new') },
          {
            label: t('common.edit'),
            permission: perm.dictEdit,
            select: 'one',
            variant: 'soft',
            onClick: (rows) => setEditing(rows[0] ?? null),
          },
          { label: t('common.delete'), permission: perm.dictDelete, select: 'some', color: 'red', onClick: remove },
        ]}
        rowActions={(row) => (
          <>
            <RowButton label={t('dict.items')} onClick={() => setItems(row)} />
            {can(me, perm.dictEdit) && <RowButton label={t('common.edit')} onClick={() => setEditing(row)} />}
            {can(me, perm.dictDelete) && <RowButton label={t('common.delete')} danger onClick={() => void remove([row])} />}
          </>
        )}
      />
      <TypeDialog editing={editing} onClose={() => setEditing(null)} />
      <ItemsDialog type={items} onClose={() => setItems(null)} />
    </>
  );
}
