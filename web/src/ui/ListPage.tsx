import { useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  getCoreRowModel,
  getExpandedRowModel,
  useReactTable,
  type ColumnDef,
  type ExpandedState,
  type RowSelectionState,
} from '@tanstack/react-table';
import { Button, Checkbox, DropdownMenu, Flex, IconButton, Select, Table, Text, TextField } from '@radix-ui/themes';
import {
  CaretDownIcon,
  CaretSortIcon,
  ChevronDownIcon,
  ChevronRightIcon,
  ChevronLeftIcon,
  DownloadIcon,
  MagnifyingGlassIcon,
  ReloadIcon,
  TriangleDownIcon,
  TriangleUpIcon,
} from '@radix-ui/react-icons';
import type { Page } from '@iot/contracts';
import { messageOf, readList, type ListQuery, type ListRoute } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { notice } from './feedback.tsx';
import { Ellipsis } from './Ellipsis.tsx';
import { exportRows } from './exportRows.ts';
import { display } from './format.ts';
import { DateTimeInput } from './DateTimeInput.tsx';

export interface ListColumn<T> {
  id: string;
  header: string;
  /** The plain value: shown (with ellipsis) unless `cell` is given, and exported. */
  value?: (row: T) => unknown;
  cell?: (row: T) => ReactNode;
  sortable?: boolean;
  width?: number;
  exportable?: boolean;
}

export interface ListFilter {
  name: string;
  label: string;
  /** `datetime`: a local date and time, sent as an ISO instant with its offset. */
  type?: 'text' | 'select' | 'datetime';
  options?: Array<{ value: string; label: string }>;
}

export interface ListAction<T> {
  label: string;
  icon?: ReactNode;
  permission?: string;
  /** What the action needs selected: nothing, exactly one row, or at least one. */
  select?: 'none' | 'one' | 'some';
  color?: 'red' | 'gray';
  variant?: 'solid' | 'soft' | 'outline';
  /** `false` (or a promise of it): cancelled or failed, so the selection stays for another try. */
  onClick: (rows: T[]) => unknown;
}

export type ListParams = ListQuery;

export interface ListPageProps<T> {
  queryKey: string;
  /** The list route of the table it reads: a GET answering `Page<T>`, or (tree mode) an array of roots. */
  route: ListRoute<T>;
  columns: ListColumn<T>[];
  /** A row's key; its `id` unless given. */
  rowId?: (row: T) => string;
  filters?: ListFilter[];
  actions?: ListAction<T>[];
  rowActions?: (row: T) => ReactNode;
  /** Tree mode: rows have children; the server answers the whole tree, no paging. */
  subRows?: (row: T) => T[] | undefined;
  exportName: string;
  selectable?: boolean;
  defaultSort?: { sort: string; order: 'asc' | 'desc' };
  params?: ListParams;
  /** What an empty list shows before any filter is applied (a first-use hint); "no data" unless given. */
  empty?: ReactNode;
}

/** The usual order of a list: the newest record first. */
export const NEWEST_FIRST = { sort: 'createdAt', order: 'desc' } as const;

const PAGE_SIZES = [10, 20, 50, 100];
const EXPORT_PAGE_SIZE = 500;

/** A tree (an array of roots) as a page of one. */
const asPage = <T,>(answer: Page<T> | readonly T[]): Page<T> =>
  isRoots(answer) ? { rows: [...answer], total: answer.length, page: 1, pageSize: answer.length } : answer;
const isRoots = <T,>(answer: Page<T> | readonly T[]): answer is readonly T[] => Array.isArray(answer);

/** The one list screen: filters, server-side paging and sorting, selection, actions and CSV/XLSX export. */
export function ListPage<T>(props: ListPageProps<T>) {
  const { t } = useTranslation();
  const user = useSession();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(20);
  const [sort, setSort] = useState(props.defaultSort);
  const [draft, setDraft] = useState<Record<string, string>>({});
  const [applied, setApplied] = useState<Record<string, string>>({});
  const [selection, setSelection] = useState<RowSelectionState>({});
  const [expanded, setExpanded] = useState<ExpandedState>(true);
  const [exporting, setExporting] = useState(false);
  const tree = props.subRows !== undefined;

  const params: ListParams = { ...props.params, ...applied, ...(tree ? {} : { page, pageSize }), ...(sort ?? {}) };
  const query = useQuery({
    queryKey: [props.queryKey, params],
    queryFn: async () => asPage(await readList(props.route, params)),
    placeholderData: keepPreviousData,
    retry: false,
  });
  const data = query.data ?? { rows: [], total: 0, page: 1, pageSize };

  const columnDefs = useMemo<ColumnDef<T>[]>(
    () => props.columns.map((c) => ({ id: c.id, header: c.header, accessorFn: (row: T) => c.value?.(row), size: c.width })),
    [props.columns],
  );
  const table = useReactTable({
    data: data.rows,
    columns: columnDefs,
    getRowId: (row) => (props.rowId ? props.rowId(row) : (row as { id: string }).id),
    getCoreRowModel: getCoreRowModel(),
    getExpandedRowModel: tree ? getExpandedRowModel() : undefined,
    getSubRows: props.subRows,
    manualPagination: true,
    manualSorting: true,
    enableRowSelection: props.selectable !== false,
    enableSubRowSelection: false,
    state: { rowSelection: selection, expanded },
    onRowSelectionChange: setSelection,
    onExpandedChange: setExpanded,
  });
  const rows = table.getRowModel().rows;
  const selected = table.getSelectedRowModel().flatRows.map((r) => r.original);
  const pages = Math.max(1, Math.ceil(data.total / pageSize));

  const runAction = async (action: ListAction<T>) => {
    if (action.select === 'some' && selected.length === 0) return notice.warning(t('prompt.selectRecord'));
    if (action.select === 'one' && selected.length !== 1) {
      return notice.warning(selected.length === 0 ? t('prompt.selectRecord') : t('prompt.onlyOne'));
    }
    const done = await action.onClick(action.select === 'none' || !action.select ? [] : selected);
    if (done !== false) setSelection({});
  };

  const toggleSort = (id: string) => {
    setPage(1);
    if (!sort || sort.sort !== id) setSort({ sort: id, order: 'asc' });
    else if (sort.order === 'asc') setSort({ sort: id, order: 'desc' });
    else setSort(props.defaultSort);
  };

  const exportAs = async (format: 'csv' | 'xlsx') => {
    setExporting(true);
    try {
      let all: T[] = [];
      if (tree) {
        const flatten = (list: T[]): T[] => list.flatMap((r) => [r, ...flatten(props.subRows?.(r) ?? [])]);
        all = flatten(asPage(await readList(props.route, { ...props.params, ...applied })).rows);
      } else {
        for (let p = 1; ; p++) {
          const chunk = asPage(await readList(props.route, { ...params, page: p, pageSize: EXPORT_PAGE_SIZE }));
          all = all.concat(chunk.rows);
          if (all.length >= chunk.total || chunk.rows.length === 0) break;
        }
      }
      const columns = props.columns
        .filter((c) => c.exportable !== false && c.value)
        .map((c) => ({ header: c.header, value: (row: T) => display(c.value!(row)) }));
      await exportRows(format, all, columns, `${props.exportName}-${new Date().toISOString().slice(0, 10)}`);
      notice.success(t('common.exported'));
    } catch (error) {
      notice.error(messageOf(error));
    } finally {
      setExporting(false);
    }
  };

  const visibleActions = (props.actions ?? []).filter((a) => can(user, a.permission));
  const colSpan = props.columns.length + (props.selectable === false ? 0 : 1) + (props.rowActions ? 1 : 0);

  return (
    <div className="list-page">
      {props.filters && props.filters.length > 0 && (
        <form
          className="list-filters"
          onSubmit={(event) => {
            event.preventDefault();
            setPage(1);
            const instant = new Set((props.filters ?? []).filter((f) => f.type === 'datetime').map((f) => f.name));
            setApplied(
              Object.fromEntries(
                Object.entries(draft)
                  .filter(([, v]) => v !== '')
                  .map(([k, v]) => [k, instant.has(k) ? new Date(v).toISOString() : v]),
              ),
            );
          }}
        >
          {props.filters.map((f) => (
            <label key={f.name} className="filter">
              <Text size="2" color="gray">
                {f.label}
              </Text>
              {f.type === 'select' ? (
                <Select.Root value={draft[f.name] ?? 'all'} onValueChange={(v) => setDraft({ ...draft, [f.name]: v === 'all' ? '' : v })}>
                  <Select.Trigger style={{ minWidth: 140 }} aria-label={f.label} />
                  <Select.Content>
                    <Select.Item value="all">{t('common.all')}</Select.Item>
                    {f.options?.map((o) => (
                      <Select.Item key={o.value} value={o.value}>
                        {o.label}
                      </Select.Item>
                    ))}
                  </Select.Content>
                </Select.Root>
              ) : f.type === 'datetime' ? (
                <DateTimeInput
                  seconds
                  aria-label={f.label}
                  value={draft[f.name] ?? ''}
                  onChange={(v) => setDraft({ ...draft, [f.name]: v })}
                />
              ) : (
                <TextField.Root
                  aria-label={f.label}
                  placeholder={t('common.inputPlaceholder', { field: f.label })}
                  value={draft[f.name] ?? ''}
                  onChange={(e) => setDraft({ ...draft, [f.name]: e.target.value })}
                />
              )}
            </label>
          ))}
          <Button type="submit">
            <MagnifyingGlassIcon />
            {t('common.search')}
          </Button>
          <Button
            type="button"
            variant="soft"
            color="gray"
            onClick={() => {
              setDraft({});
              setApplied({});
              setPage(1);
            }}
          >
            {t('common.reset')}
          </Button>
        </form>
      )}

      <Flex className="list-toolbar" gap="2" align="center" wrap="wrap">
        {visibleActions.map((a) => (
          <Button
            key={a.label}
            color={a.color}
            variant={a.variant ?? (a.color === 'red' ? 'soft' : 'solid')}
            onClick={() => void runAction(a)}
          >
            {a.icon}
            {a.label}
          </Button>
        ))}
        <div style={{ flex: 1 }} />
        <IconButton
          variant="ghost"
          color="gray"
          aria-label={t('common.refresh')}
          title={t('common.refresh')}
          onClick={() => void queryClient.invalidateQueries({ queryKey: [props.queryKey] })}
        >
          <ReloadIcon />
        </IconButton>
        <DropdownMenu.Root>
          <DropdownMenu.Trigger>
            <Button variant="outline" loading={exporting}>
              <DownloadIcon />
              {t('common.export')}
              <CaretDownIcon />
            </Button>
          </DropdownMenu.Trigger>
          <DropdownMenu.Content>
            <DropdownMenu.Item onSelect={() => void exportAs('csv')}>CSV</DropdownMenu.Item>
            <DropdownMenu.Item onSelect={() => void exportAs('xlsx')}>Excel (XLSX)</DropdownMenu.Item>
          </DropdownMenu.Content>
        </DropdownMenu.Root>
      </Flex>

      <div className="list-table">
        <Table.Root variant="surface" size="1">
          <Table.Header>
            <Table.Row>
              {props.selectable !== false && (
                <Table.ColumnHeaderCell width="36px">
                  <Checkbox
                    aria-label={t('common.selectAll')}
                    checked={table.getIsAllRowsSelected() ? true : table.getIsSomeRowsSelected() ? 'indeterminate' : false}
                    onCheckedChange={(v) => table.toggleAllRowsSelected(v === true)}
                  />
                </Table.ColumnHeaderCell>
              )}
              {props.columns.map((c) => (
                <Table.ColumnHeaderCell key={c.id} style={c.width ? { width: c.width, minWidth: c.width } : undefined}>
                  {c.sortable ? (
                    <button type="button" className="sort-header" onClick={() => toggleSort(c.id)}>
                      {c.header}
                      {sort?.sort === c.id ? sort.order === 'asc' ? <TriangleUpIcon /> : <TriangleDownIcon /> : <CaretSortIcon />}
                    </button>
                  ) : (
                    c.header
                  )}
                </Table.ColumnHeaderCell>
              ))}
              {props.rowActions && <Table.ColumnHeaderCell className="actions-col">{t('common.actions')}</Table.ColumnHeaderCell>}
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {rows.length === 0 && (
              <Table.Row>
                <Table.Cell colSpan={colSpan}>
                  <div className="list-empty">
                    {query.isLoading
                      ? t('common.loading')
                      : query.error
                        ? messageOf(query.error)
                        : Object.keys(applied).length === 0 && props.empty
                          ? props.empty
                          : t('common.noData')}
                  </div>
                </Table.Cell>
              </Table.Row>
            )}
            {rows.map((row) => (
              <Table.Row key={row.id} data-state={row.getIsSelected() ? 'selected' : undefined}>
                {props.selectable !== false && (
                  <Table.Cell>
                    <Checkbox
                      aria-label={t('common.selectRow')}
                      checked={row.getIsSelected()}
                      onCheckedChange={(v) => row.toggleSelected(v === true)}
                    />
                  </Table.Cell>
                )}
                {props.columns.map((c, index) => (
                  // A column keeps its width (the table scrolls sideways instead of squeezing it), and what does not fit
                  // ends with an ellipsis rather than running under its neighbour or the actions column.
                  <Table.Cell key={c.id} style={c.width ? { maxWidth: c.width, minWidth: c.width } : { maxWidth: 260 }}>
                    <Flex
                      align="center"
                      gap="1"
                      className="cell-content"
                      style={index === 0 && tree ? { paddingLeft: row.depth * 20 } : undefined}
                    >
                      {index === 0 &&
                        tree &&
                        (row.getCanExpand() ? (
                          <IconButton
                            size="1"
                            variant="ghost"
                            color="gray"
                            aria-label={t('common.expand')}
                            onClick={row.getToggleExpandedHandler()}
                          >
                            {row.getIsExpanded() ? <ChevronDownIcon /> : <ChevronRightIcon />}
                          </IconButton>
                        ) : (
                          <span style={{ width: 24, display: 'inline-block' }} />
                        ))}
                      {c.cell ? c.cell(row.original) : <Ellipsis value={c.value?.(row.original)} />}
                    </Flex>
                  </Table.Cell>
                ))}
                {props.rowActions && (
                  <Table.Cell className="actions-col">
                    <Flex gap="3">{props.rowActions(row.original)}</Flex>
                  </Table.Cell>
                )}
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
      </div>

      {!tree && (
        <Flex className="list-pager" gap="3" align="center" justify="end">
          <Text size="2" color="gray">
            {t('common.total', { count: data.total })}
          </Text>
          <Select.Root
            value={String(pageSize)}
            onValueChange={(v) => {
              setPageSize(Number(v));
              setPage(1);
            }}
          >
            <Select.Trigger aria-label={t('common.pageSize')} />
            <Select.Content>
              {PAGE_SIZES.map((s) => (
                <Select.Item key={s} value={String(s)}>
                  {t('common.perPage', { count: s })}
                </Select.Item>
              ))}
            </Select.Content>
          </Select.Root>
          <IconButton variant="soft" color="gray" disabled={page <= 1} aria-label={t('common.prevPage')} onClick={() => setPage(page - 1)}>
            <ChevronLeftIcon />
          </IconButton>
          <Text size="2">
            {page} / {pages}
          </Text>
          <IconButton
            variant="soft"
            color="gray"
            disabled={page >= pages}
            aria-label={t('common.nextPage')}
            onClick={() => setPage(page + 1)}
          >
            <ChevronRightIcon />
          </IconButton>
        </Flex>
      )}
    </div>
  );
}

/** Lets a screen refresh its list after a change. */
export function useRefresh(queryKey: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: [queryKey] });
}
