import { useCallback, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { PlusIcon } from '@radix-ui/react-icons';
import { ApiError, deleteById, deleteByIds, messageOf, type BulkAnswer, type BulkDeleteRoute, type DeleteRoute } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { confirm, notice } from './feedback.tsx';
import { useForm } from './form.tsx';
import { formatDate } from './format.ts';
import { useRefresh, type ListAction, type ListColumn } from './ListPage.tsx';
import { RowButton, StatusBadge } from './widgets.tsx';

const showError = (error: unknown) => notice.error(messageOf(error));

/** A busy flag around async work; a failure is shown as a notice unless `onError` handles it. */
export function useBusy() {
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (work: () => Promise<unknown>, onError: (error: unknown) => void = showError) => {
    setBusy(true);
    try {
      await work();
    } catch (error) {
      onError(error);
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, run };
}

/** Calls `onOpen` (during render) each time `key` changes: how a dialog resets its form as it opens. */
export function useOnOpen<K>(key: K | null, onOpen: (key: K | null) => void) {
  const [opened, setOpened] = useState<K | null>(null);
  if (key !== opened) {
    setOpened(key);
    onOpen(key);
  }
}

/**
 * A dialog editing one record of a list: its form resets from `valuesOf` as it opens, `run` does the saving
 * with a busy flag, and `done` says so, marks the form saved, refreshes the list and closes.
 */
export function useRecordDialog<V extends Record<string, unknown>, E>({
  editing,
  empty,
  valuesOf,
  queryKey,
  onClose,
}: {
  editing: E | null;
  empty: V;
  valuesOf: (editing: E | null) => V;
  queryKey: string;
  onClose: () => void;
}) {
  const form = useForm<V>(empty);
  const refresh = useRefresh(queryKey);
  const { busy, run } = useBusy();
  useOnOpen(editing, (e) => form.reset(valuesOf(e)));
  const done = async (message: string) => {
    notice.success(message);
    form.markSaved();
    await refresh();
    onClose();
  };
  /** The `FormDialog` props that follow from the above. */
  const dialog = { open: editing !== null, dirty: form.dirty, busy, onClose };
  return { form, busy, run, done, dialog };
}

/**
 * Changes records of a list: asks first when `ask` is given, then says it worked (one notice) or why not, and
 * refreshes the list. Answers whether it happened: a cancelled or failed change keeps the list's selection.
 */
export function useListChange(queryKey: string) {
  const refresh = useRefresh(queryKey);
  return async (work: () => Promise<unknown>, success: string, ask?: Parameters<typeof confirm>[0]): Promise<boolean> => {
    if (ask && !(await confirm(ask))) return false;
    try {
      await work();
      notice.success(success);
      await refresh();
      return true;
    } catch (error) {
      showError(error);
      return false;
    }
  };
}

/** The question before deleting records: the object's kind and the records' names. */
export function deleteQuestion(t: TFunction, object: string, names: string[]): string {
  return names.length === 1
    ? t('common.deleteQuestion', { object, name: names[0] })
    : t('common.deleteManyQuestion', { object, count: names.length, names: names.join(', ') });
}

/** Deletes records of a list after a danger confirm asking the question given (see `deleteQuestion`). */
export function useListDelete(queryKey: string) {
  const { t } = useTranslation();
  const change = useListChange(queryKey);
  return (question: string, work: () => Promise<unknown>, success = t('common.deleted')) =>
    change(work, success, { message: question, danger: true, confirmLabel: t('common.delete') });
}

/**
 * A bulk answer: nothing when every record went (the caller says it worked, once), else an error saying how
 * many failed and why, for the caller to show.
 */
export function reportBulk(t: TFunction, answer: BulkAnswer): void {
  if (answer.failed === 0) return;
  const reasons = [...new Set(answer.results.filter((r) => !r.ok).map((r) => r.msg))].join('; ');
  throw new ApiError(200, 'PARTLY', t('common.partly', { ok: answer.ok, failed: answer.failed, reasons }));
}

/**
 * The delete button of a list whose route deletes in bulk: the danger confirm naming the rows, one call for all of
 * them, and a partial answer shown as the error saying how many failed and why.
 */
export function useBulkDelete<T extends { id: string }>(
  queryKey: string,
  route: BulkDeleteRoute,
  object: string,
  name: (row: T) => string,
  success?: string,
) {
  const { t } = useTranslation();
  const deleteRows = useListDelete(queryKey);
  return (rows: T[]) =>
    deleteRows(
      deleteQuestion(t, object, rows.map(name)),
      async () =>
        reportBulk(
          t,
          await deleteByIds(
            route,
            rows.map((r) => r.id),
          ),
        ),
      success,
    );
}

/**
 * The delete button of a list whose route deletes one record at a time: the danger confirm naming the rows, then
 * one call per row, in order, stopping at the first refusal (which is shown).
 */
export function useEachDelete<T extends { id: string }>(queryKey: string, route: DeleteRoute, object: string, name: (row: T) => string) {
  const { t } = useTranslation();
  const deleteRows = useListDelete(queryKey);
  return (rows: T[]) =>
    deleteRows(deleteQuestion(t, object, rows.map(name)), async () => {
      for (const row of rows) await deleteById(route, row.id);
    });
}

/** Options for a select from fixed values, each labelled by its translation `<prefix>.<value>`. */
export const labelled = (t: TFunction, prefix: string, values: readonly string[]) =>
  values.map((value) => ({ value, label: t(`${prefix}.${value}`) }));

/** The toolbar's add, edit and (when `remove` is given) delete buttons. */
export function crudActions<T>(
  t: TFunction,
  perms: { add: string; edit: string; delete?: string },
  handlers: { add: () => void; edit: (row: T) => void; remove?: (rows: T[]) => Promise<unknown>; removeSelect?: 'one' | 'some' },
): ListAction<T>[] {
  const actions: ListAction<T>[] = [
    { label: t('common.add'), icon: <PlusIcon />, permission: perms.add, select: 'none', onClick: handlers.add },
    {
      label: t('common.edit'),
      permission: perms.edit,
      select: 'one',
      variant: 'soft',
      onClick: (rows) => handlers.edit(rows[0]!),
    },
  ];
  if (handlers.remove) {
    actions.push({
      label: t('common.delete'),
      permission: perms.delete,
      select: handlers.removeSelect ?? 'some',
      color: 'red',
      onClick: handlers.remove,
    });
  }
  return actions;
}

/** A row's button shown only to a user holding `permission`. */
export function PermittedRowButton({
  permission,
  label,
  onClick,
  danger,
}: {
  permission: string;
  label: string;
  onClick: () => void;
  danger?: boolean;
}): ReactNode {
  const me = useSession();
  return can(me, permission) ? <RowButton label={label} onClick={onClick} danger={danger} /> : null;
}

/** A record's status as a coloured badge, exported by its translated name. */
export const statusColumn = <T extends { status: string }>(
  t: TFunction,
  header: string,
  width: number,
  sortable?: boolean,
): ListColumn<T> => ({
  id: 'status',
  header,
  value: (r) => t(`status.${r.status}`),
  cell: (r) => <StatusBadge value={r.status} />,
  sortable,
  width,
});

/** The day a record was created. */
export const createdAtColumn = <T extends { createdAt: string | null }>(header: string, sortable = true): ListColumn<T> => ({
  id: 'createdAt',
  header,
  value: (r) => formatDate(r.createdAt),
  sortable,
  width: 110,
});
