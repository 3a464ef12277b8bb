import './i18n.ts';
import { useRef, useState } from 'react';
import type { z } from 'zod';
import { useTranslation } from 'react-i18next';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Dialog, Flex, Select, Table, Tabs, Text, TextArea, TextField } from '@radix-ui/themes';
import { nodeTypes, protocols, type ProductRow } from '@iot/contracts/device/model.ts';
import { devicePerm } from '@iot/contracts/device/permissions.ts';
import { thingFunction } from '@iot/contracts/device/thing-model.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { crudActions, PermittedRowButton, useListChange, useListDelete, useRecordDialog } from '../ui/crud.tsx';
import { notice } from '../ui/feedback.tsx';
import { blank, Field, FormDialog, type Errors, checkBody } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput } from '../ui/widgets.tsx';
import { downloadRoute } from './download.ts';

const PRODUCTS = 'products';
const empty = {
  id: '',
  name: '',
  code: '',
  type: 'direct',
  category: '',
  version: '',
  company: '',
  model: '',
  manufacturer: '',
  protocol: 'mqtt',
  description: '',
};

function ProductDialog({ editing, onClose }: { editing: ProductRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const { form, run, done, dialog } = useRecordDialog({
    editing,
    empty,
    queryKey: PRODUCTS,
    onClose,
    valuesOf: (e) =>
      e && e !== 'new'
        ? (Object.fromEntries(Object.keys(empty).map((k) => [k, String((e as Record<string, unknown>)[k] ?? '')])) as typeof empty)
        : empty,
  });
  const submit = async () => {
    const { id, ...rest } = form.values;
    const body = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, v === '' ? null : v]));
    const checked = creating
      ? checkBody('product.create', body, t, { code: t('validation.invalid') })
      : checkBody('product.update', { id, ...body }, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute(checked.route, { body: checked.data });
      await done(t(creating ? 'common.created' : 'common.saved'));
    });
  };
  return (
    <FormDialog {...dialog} width="640px" title={t(creating ? 'fleet.addProduct' : 'fleet.editProduct')} onSubmit={() => void submit()}>
      <Field label={t('fleet.productName')} required error={form.errors.name}>
        <TextField.Root {...form.input('name')} />
      </Field>
      <Field label={t('fleet.code')} required error={form.errors.code}>
        <TextField.Root {...form.input('code')} />
      </Field>
      <Field label={t('fleet.nodeType')} required>
        <SelectInput {...form.select('type')} options={nodeTypes.map((v) => ({ value: v, label: t(`fleet.nodeTypes.${v}`) }))} />
      </Field>
      <Field label={t('fleet.protocol')} required>
        <SelectInput {...form.select('protocol')} options={protocols.map((v) => ({ value: v, label: v }))} />
      </Field>
      {(['category', 'version', 'company', 'model', 'manufacturer'] as const).map((k) => (
        <Field key={k} label={t(`fleet.${k}`)} error={form.errors[k]}>
          <TextField.Root {...form.input(k)} />
        </Field>
      ))}
      <Field label={t('fleet.description')}>
        <TextArea {...form.input('description')} />
      </Field>
    </FormDialog>
  );
}

type Fn = Record<string, unknown> & { type: string; name: string; identifier: string; dataType?: Record<string, unknown> };

const functionEmpty = {
  type: 'property',
  name: '',
  identifier: '',
  dataType: 'float',
  min: '',
  max: '',
  step: '',
  unit: '',
  enumValues: '',
  maxLength: '',
  access: 'r',
  invoke: 'async',
  timeoutMs: '10000',
  level: 'info',
  inputs: '',
};

/** A function of the thing model as the editor's flat form, and back. */
function toFunction(v: typeof functionEmpty): Record<string, unknown> {
  const num = (s: string) => (s.trim() === '' ? undefined : Number(s));
  const spec: Record<string, unknown> = {
    type: v.dataType,
    min: num(v.min),
    max: num(v.max),
    step: num(v.step),
    unit: v.unit || undefined,
  };
  if (v.dataType === 'enum')
    spec.enumValues = v.enumValues
      .split(/[,，]/)
      .map((pair) => pair.split(/[:：]/))
      .filter(([value, label]) => value !== undefined && label !== undefined)
      .map(([value, label]) => ({ value: /^-?\d+$/.test(value!.trim()) ? Number(value) : value!.trim(), label: label!.trim() }));
  if (v.dataType === 'text') spec.maxLength = num(v.maxLength);
  const base = { name: v.name, identifier: v.identifier };
  if (v.type === 'property') return { ...base, type: 'property', dataType: spec, access: v.access };
  const params = v.inputs
    .split(/[,，]/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => {
      const [identifier, type = 'int'] = p.split(':');
      return { identifier: identifier!.trim(), name: identifier!.trim(), dataType: { type: type.trim() } };
    });
  if (v.type === 'service') return { ...base, type: 'service', invoke: v.invoke, timeoutMs: Number(v.timeoutMs) || 10000, inputs: params };
  return { ...base, type: 'event', level: v.level, outputs: params };
}
function fromFunction(f: Fn): typeof functionEmpty {
  const d = (f.dataType ?? {}) as Record<string, unknown>;
  const s = (x: unknown) => (x === undefined || x === null ? '' : String(x));
  const params = ((f.inputs ?? f.outputs ?? []) as { identifier: string; dataType: { type: string } }[])
    .map((p) => `${p.identifier}:${p.dataType.type}`)
    .join(',');
  return {
    ...functionEmpty,
    type: f.type,
    name: f.name,
    identifier: f.identifier,
    dataType: s(d.type) || 'float',
    min: s(d.min),
    max: s(d.max),
    step: s(d.step),
    unit: s(d.unit),
    maxLength: s(d.maxLength),
    enumValues: ((d.enumValues ?? []) as { value: unknown; label: string }[]).map((e) => `${String(e.value)}:${e.label}`).join(','),
    access: s(f.access) || 'r',
    invoke: s(f.invoke) || 'async',
    timeoutMs: s(f.timeoutMs) || '10000',
    level: s(f.level) || 'info',
    inputs: params,
  };
}
/** Where an issue of the contract's function schema shows in the flat form: the field it belongs to. */
const formFieldOf = (path: readonly PropertyKey[]): string => {
  const [head, next] = path.map(String);
  if (head === 'dataType') return next && next in functionEmpty ? next : 'dataType';
  if (head === 'inputs' || head === 'outputs') return 'inputs';
  return head ?? 'name';
};

/**
 * Checks the form with the contract's own schema (the one the server applies) before anything is sent: each
 * fault shows at its field, in the user's language, and a faulty form asks the server nothing.
 */
export function checkFunction(
  v: typeof functionEmpty,
  t: (key: string) => string,
): { ok: true; value: z.input<typeof thingFunction> } | { ok: false; errors: Errors } {
  const value = toFunction(v);
  const result = thingFunction.safeParse(value);
  // The form's own value goes out, as before: the schema accepted it, and the server parses it again.
  if (result.success) return { ok: true, value: value as z.input<typeof thingFunction> };
  const errors: Errors = {};
  for (const issue of result.error.issues) {
    const field = formFieldOf(issue.path);
    if (errors[field]) continue;
    const entered = (v as Record<string, unknown>)[field];
    errors[field] = blank(entered)
      ? t('validation.required')
      : field === 'identifier' || field === 'inputs'
        ? t('fleet.identifierRule')
        : field === 'max' || field === 'min'
          ? t('fleet.rangeRule')
          : t('validation.invalid');
  }
  return { ok: false, errors };
}

export const describeSpec = (d: Record<string, unknown> | undefined): string => {
  if (!d) return '--';
  const parts: string[] = [];
  if (d.min != null || d.max != null) parts.push(`${d.min ?? '-∞'} ~ ${d.max ?? '+∞'}`);
  if (d.unit) parts.push(String(d.unit));
  if (Array.isArray(d.enumValues))
    parts.push((d.enumValues as { value: unknown; label: string }[]).map((e) => `${String(e.value)}=${e.label}`).join(', '));
  return parts.join(' · ') || '--';
};

function FunctionDialog({
  productId,
  editing,
  onClose,
  onSaved,
}: {
  productId: string;
  editing: Fn | 'new' | null;
  onClose: () => void;
  onSaved: () => void;
}) {
  const { t } = useTranslation();
  const { form, run, done, dialog } = useRecordDialog({
    editing,
    empty: functionEmpty,
    queryKey: PRODUCTS,
    onClose,
    valuesOf: (e) => (e && e !== 'new' ? fromFunction(e) : functionEmpty),
  });
  const v = form.values;
  const submit = () => {
    const checked = checkFunction(v, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    return run(async () => {
      await callRoute('product.defineFunction', {
        body: {
          productId,
          function: checked.value,
          ...(editing && editing !== 'new' ? { replaces: editing.identifier } : {}),
        },
      });
      onSaved();
      await done(t('common.saved'));
    });
  };
  const types = ['int', 'long', 'float', 'double', 'bool', 'enum', 'text', 'date'];
  return (
    <FormDialog
      {...dialog}
      width="640px"
      title={t(editing === 'new' ? 'fleet.addFunction' : 'fleet.editFunction')}
      onSubmit={() => void submit()}
    >
      <Field label={t('fleet.functionType')} required>
        <SelectInput
          {...form.select('type')}
          options={['property', 'service', 'event'].map((x) => ({ value: x, label: t(`fleet.types.${x}`) }))}
        />
      </Field>
      <Field label={t('fleet.name')} required error={form.errors.name}>
        <TextField.Root {...form.input('name')} />
      </Field>
      <Field label={t('fleet.identifier')} required hint={t('fleet.identifierRule')} error={form.errors.identifier}>
        <TextField.Root {...form.input('identifier')} />
      </Field>
      {v.type === 'property' && (
        <>
          <Field label={t('fleet.dataType')} required>
            <SelectInput {...form.select('dataType')} options={types.map((x) => ({ value: x, label: x }))} />
          </Field>
          <Field label={t('fleet.access')}>
            <SelectInput
              {...form.select('access')}
              options={(['r', 'rw'] as const).map((x) => ({ value: x, label: t(`fleet.accessModes.${x}`) }))}
            />
          </Field>
          {['int', 'long', 'float', 'double'].includes(v.dataType) &&
            (['min', 'max', 'step', 'unit'] as const).map((k) => (
              <Field key={k} label={t(`fleet.${k}`)} error={form.errors[k]}>
                <TextField.Root {...form.input(k)} />
              </Field>
            ))}
          {v.dataType === 'enum' && (
            <Field label={t('fleet.enumValues')} required error={form.errors.enumValues}>
              <TextField.Root {...form.input('enumValues')} />
            </Field>
          )}
          {v.dataType === 'text' && (
            <Field label={t('fleet.maxLength')} error={form.errors.maxLength}>
              <TextField.Root {...form.input('maxLength')} />
            </Field>
          )}
        </>
      )}
      {v.type === 'service' && (
        <>
          <Field label={t('fleet.invoke')}>
            <SelectInput
              {...form.select('invoke')}
              options={(['sync', 'async'] as const).map((x) => ({ value: x, label: t(`fleet.invokeModes.${x}`) }))}
            />
          </Field>
          <Field label={t('fleet.timeoutMs')} error={form.errors.timeoutMs}>
            <TextField.Root {...form.input('timeoutMs')} />
          </Field>
        </>
      )}
      {v.type === 'event' && (
        <Field label={t('fleet.level')}>
          <SelectInput
            {...form.select('level')}
            options={['info', 'warn', 'alert', 'fault'].map((x) => ({ value: x, label: t(`fleet.eventLevels.${x}`) }))}
          />
        </Field>
      )}
      {v.type !== 'property' && (
        <Field label={t('fleet.inputs')} error={form.errors.inputs}>
          <TextField.Root {...form.input('inputs')} placeholder="delay:int" />
        </Field>
      )}
    </FormDialog>
  );
}

export function ProductDetail({ id, onClose }: { id: string | null; onClose: () => void }) {
  const { t } = useTranslation();
  const me = useSession();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Fn | 'new' | null>(null);
  const [faults, setFaults] = useState<{ row: number; field: string; reason: string }[]>([]);
  const file = useRef<HTMLInputElement>(null);
  const detail = useQuery({ queryKey: ['product', id], queryFn: () => callRoute('product.detail', { query: { id: id! } }), enabled: !!id });
  const refresh = () =>
    void queryClient.invalidateQueries({ queryKey: ['product', id] }).then(() => queryClient.invalidateQueries({ queryKey: [PRODUCTS] }));
  if (!id) return null;
  const p = detail.data;
  const editable = can(me, devicePerm.productEdit);
  const importFile = async (f: File) => {
    setFaults([]);
    try {
      const model = JSON.parse(await f.text()) as unknown;
      await callRoute('product.importModel', { body: { productId: id, model } });
      notice.success(t('common.saved'));
      refresh();
    } catch (error) {
      const details = (error as { details?: { faults?: typeof faults } }).details;
      if (details?.faults) setFaults(details.faults);
      notice.error(error instanceof SyntaxError ? t('fleet.modelFaults') : messageOf(error));
    }
  };
  const remove = async (f: Fn) => {
    try {
      await callRoute('product.removeFunction', { query: { productId: id, identifier: f.identifier } });
      refresh();
    } catch (error) {
      notice.error(messageOf(error));
    }
  };
  return (
    <Dialog.Root open onOpenChange={(o) => !o && onClose()}>
      <Dialog.Content maxWidth="960px" aria-describedby={undefined}>
        <Dialog.Title>
          {p?.name ?? '…'} <Badge color={p?.status === 'published' ? 'green' : 'gray'}>{p ? t(`fleet.statuses.${p.status}`) : ''}</Badge>
        </Dialog.Title>
        {detail.isError && <Text color="red">{messageOf(detail.error)}</Text>}
        {p && (
          <Tabs.Root defaultValue="model">
            <Tabs.List>
              <Tabs.Trigger value="model">{t('fleet.thingModel')}</Tabs.Trigger>
              <Tabs.Trigger value="versions">{t('fleet.versions')}</Tabs.Trigger>
              <Tabs.Trigger value="fields">{t('fleet.detail')}</Tabs.Trigger>
            </Tabs.List>
            <Tabs.Content value="model">
              <Flex gap="2" my="3" wrap="wrap" align="center">
                {editable && <Button onClick={() => setEditing('new')}>{t('fleet.addFunction')}</Button>}
                {can(me, devicePerm.productPublish) && (
                  <Button
                    color="green"
                    onClick={() =>
                      void callRoute('product.publish', { body: { id } })
                        .then((r) => {
                          notice.success(t('fleet.published', { version: r.version }));
                          refresh();
                        })
                        .catch((e: unknown) => notice.error(messageOf(e)))
                    }
                  >
                    {t('fleet.publish')}
                  </Button>
                )}
                <Button variant="soft" onClick={() => void downloadRoute('product.exportModel', { id }, `${p.code}.json`)}>
                  {t('fleet.exportModel')}
                </Button>
                {editable && (
                  <>
                    <Button variant="soft" onClick={() => file.current?.click()}>
                      {t('fleet.importModel')}
                    </Button>
                    <input
                      ref={file}
                      type="file"
                      accept="application/json,.json"
                      hidden
                      aria-label={t('fleet.importModel')}
                      onChange={(e) => {
                        const f = e.target.files?.[0];
                        e.target.value = '';
                        if (f) void importFile(f);
                      }}
                    />
                  </>
                )}
                {p.draftChanged && <Badge color="orange">{t('fleet.draftChanged')}</Badge>}
                <Text size="2" color="gray">
                  {t('fleet.modelVersion')}: {p.modelVersion || '--'}
                </Text>
              </Flex>
              {faults.length > 0 && (
                <Table.Root size="1" variant="surface" mb="3" aria-label={t('fleet.modelFaults')}>
                  <Table.Header>
                    <Table.Row>
                      <Table.ColumnHeaderCell>{t('fleet.row')}</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>{t('fleet.field')}</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>{t('fleet.reason')}</Table.ColumnHeaderCell>
                    </Table.Row>
                  </Table.Header>
                  <Table.Body>
                    {faults.map((f, i) => (
                      <Table.Row key={i}>
                        <Table.Cell>{f.row}</Table.Cell>
                        <Table.Cell>{f.field}</Table.Cell>
                        <Table.Cell>{f.reason}</Table.Cell>
                      </Table.Row>
                    ))}
                  </Table.Body>
                </Table.Root>
              )}
              <Table.Root size="1" variant="surface">
                <Table.Header>
                  <Table.Row>
                    <Table.ColumnHeaderCell>{t('fleet.functionType')}</Table.ColumnHeaderCell>
                    <Table.ColumnHeaderCell>{t('fleet.name')}</Table.ColumnHeaderCell>
                    <Table.ColumnHeaderCell>{t('fleet.identifier')}</Table.ColumnHeaderCell>
                    <Table.ColumnHeaderCell>{t('fleet.dataType')}</Table.ColumnHeaderCell>
                    <Table.ColumnHeaderCell>{t('fleet.definition')}</Table.ColumnHeaderCell>
                    <Table.ColumnHeaderCell />
                  </Table.Row>
                </Table.Header>
                <Table.Body>
                  {(p.functions as Fn[]).length === 0 && (
                    <Table.Row>
                      <Table.Cell colSpan={6}>
                        <Text color="gray">{t('common.noData')}</Text>
                      </Table.Cell>
                    </Table.Row>
                  )}
                  {(p.functions as Fn[]).map((f) => (
                    <Table.Row key={f.identifier}>
                      <Table.Cell>{t(`fleet.types.${f.type}`)}</Table.Cell>
                      <Table.Cell>{f.name}</Table.Cell>
                      <Table.Cell>{f.identifier}</Table.Cell>
                      <Table.Cell>
                        {f.dataType?.type
                          ? String(f.dataType.type)
                          : f.type === 'service'
                            ? t(`fleet.invokeModes.${String(f.invoke)}`)
                            : t(`fleet.eventLevels.${String(f.level)}`)}
                      </Table.Cell>
                      <Table.Cell>{describeSpec(f.dataType)}</Table.Cell>
                      <Table.Cell>
                        {editable && (
                          <Flex gap="3">
                            <PermittedRowButton
                              permission={devicePerm.productEdit}
                              label={t('common.edit')}
                              onClick={() => setEditing(f)}
                            />
                            <PermittedRowButton
                              permission={devicePerm.productEdit}
                              label={t('common.delete')}
                              danger
                              onClick={() => void remove(f)}
                            />
                          </Flex>
                        )}
                      </Table.Cell>
                    </Table.Row>
                  ))}
                </Table.Body>
              </Table.Root>
            </Tabs.Content>
            <Tabs.Content value="versions">
              <Table.Root size="1" variant="surface" mt="3">
                <Table.Header>
                  <Table.Row>
                    <Table.ColumnHeaderCell>{t('fleet.version')}</Table.ColumnHeaderCell>
                    <Table.ColumnHeaderCell>{t('fleet.publishedAt')}</Table.ColumnHeaderCell>
                    <Table.ColumnHeaderCell>{t('fleet.publishedBy')}</Table.ColumnHeaderCell>
                    <Table.ColumnHeaderCell>{t('fleet.functions')}</Table.ColumnHeaderCell>
                    <Table.ColumnHeaderCell />
                  </Table.Row>
                </Table.Header>
                <Table.Body>
                  {p.versions.map((v) => (
                    <Table.Row key={v.version}>
                      <Table.Cell>v{v.version}</Table.Cell>
                      <Table.Cell>{formatDate(v.publishedAt, true)}</Table.Cell>
                      <Table.Cell>{v.publishedBy}</Table.Cell>
                      <Table.Cell>{v.functionCount}</Table.Cell>
                      <Table.Cell>
                        <Button
                          size="1"
                          variant="ghost"
                          onClick={() =>
                            void downloadRoute('product.exportModel', { id, version: v.version }, `${p.code}-v${v.version}.json`)
                          }
                        >
                          {t('fleet.exportModel')}
                        </Button>
                      </Table.Cell>
                    </Table.Row>
                  ))}
                </Table.Body>
              </Table.Root>
            </Tabs.Content>
            <Tabs.Content value="fields">
              <dl className="detail-list">
                {(['key', 'code', 'category', 'version', 'company', 'model', 'manufacturer', 'protocol', 'description'] as const).map(
                  (k) => (
                    <div key={k}>
                      <dt>{t(`fleet.${k}`)}</dt>
                      <dd>{String(p[k] ?? '--')}</dd>
                    </div>
                  ),
                )}
              </dl>
            </Tabs.Content>
          </Tabs.Root>
        )}
        <FunctionDialog productId={id} editing={editing} onClose={() => setEditing(null)} onSaved={refresh} />
        <Flex justify="end" mt="3">
          <Dialog.Close>
            <Button variant="soft" color="gray">
              {t('common.close')}
            </Button>
          </Dialog.Close>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}

export function ProductsPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<ProductRow | 'new' | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const deleteRows = useListDelete(PRODUCTS);
  const change = useListChange(PRODUCTS);
  const columns: ListColumn<ProductRow>[] = [
    {
      id: 'name',
      header: t('fleet.productName'),
      value: (r) => r.name,
      cell: (r) => (
        <Button variant="ghost" size="1" onClick={() => setOpen(r.id)}>
          {r.name}
        </Button>
      ),
      sortable: true,
      width: 180,
    },
    { id: 'code', header: t('fleet.code'), value: (r) => r.code, sortable: true, width: 130 },
    { id: 'type', header: t('fleet.nodeType'), value: (r) => t(`fleet.nodeTypes.${r.type}`), width: 110 },
    {
      id: 'status',
      header: t('fleet.status'),
      value: (r) => t(`fleet.statuses.${r.status}`),
      cell: (r) => <Badge color={r.status === 'published' ? 'green' : 'gray'}>{t(`fleet.statuses.${r.status}`)}</Badge>,
      width: 90,
    },
    { id: 'modelVersion', header: t('fleet.modelVersion'), value: (r) => (r.modelVersion ? `v${r.modelVersion}` : '--'), width: 100 },
    { id: 'functionCount', header: t('fleet.functions'), value: (r) => r.functionCount, width: 80 },
    { id: 'deviceCount', header: t('fleet.devices'), value: (r) => r.deviceCount, width: 80 },
    { id: 'protocol', header: t('fleet.protocol'), value: (r) => r.protocol, width: 90 },
    { id: 'manufacturer', header: t('fleet.manufacturer'), value: (r) => r.manufacturer, width: 120 },
    { id: 'createBy', header: t('fleet.createBy'), value: (r) => r.createBy, width: 100 },
    { id: 'createTime', header: t('fleet.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  return (
    <>
      <ListPage<ProductRow>
        queryKey={PRODUCTS}
        route="product.list"
        exportName={t('fleet.products')}
        columns={columns}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[
          { name: 'name', label: t('fleet.productName') },
          {
            name: 'type',
            label: t('fleet.nodeType'),
            type: 'select',
            options: nodeTypes.map((v) => ({ value: v, label: t(`fleet.nodeTypes.${v}`) })),
          },
          {
            name: 'status',
            label: t('fleet.status'),
            type: 'select',
            options: ['published', 'unpublished'].map((v) => ({ value: v, label: t(`fleet.statuses.${v}`) })),
          },
        ]}
        actions={[
          ...crudActions<ProductRow>(
            t,
            { add: devicePerm.productAdd, edit: devicePerm.productEdit, delete: devicePerm.productDelete },
            {
              add: () => setEditing('new'),
              edit: setEditing,
              remove: (rows) =>
                deleteRows(t('fleet.deleteProductConfirm', { names: rows.map((r) => r.name).join(', ') }), async () => {
                  for (const r of rows) await callRoute('product.delete', { query: { id: r.id } });
                }),
            },
          ),
          {
            label: t('fleet.copy'),
            permission: devicePerm.productAdd,
            select: 'one',
            variant: 'soft',
            onClick: ([row]) =>
              change(
                () =>
                  callRoute('product.copy', {
                    body: { id: row!.id, name: `${row!.name}-copy`.slice(0, 64), code: `${row!.code}-copy`.slice(0, 64) },
                  }),
                t('common.created'),
              ),
          },
        ]}
        rowActions={(row) => (
          <>
            <PermittedRowButton permission={devicePerm.productList} label={t('fleet.detail')} onClick={() => setOpen(row.id)} />
            <PermittedRowButton permission={devicePerm.productEdit} label={t('common.edit')} onClick={() => setEditing(row)} />
            {row.status === 'published' ? (
              <PermittedRowButton
                permission={devicePerm.productPublish}
                label={t('fleet.unpublish')}
                onClick={() => void change(() => callRoute('product.unpublish', { body: { id: row.id } }), t('common.saved'))}
              />
            ) : (
              <PermittedRowButton
                permission={devicePerm.productPublish}
                label={t('fleet.publish')}
                onClick={() => void change(() => callRoute('product.publish', { body: { id: row.id } }), t('common.saved'))}
              />
            )}
          </>
        )}
      />
      <ProductDialog editing={editing} onClose={() => setEditing(null)} />
      <ProductDetail id={open} onClose={() => setOpen(null)} />
    </>
  );
}

/** The products of the tenant as options of a select (published first). */
export function useProductOptions() {
  return useQuery({
    queryKey: [PRODUCTS, 'options'],
    queryFn: async () =>
      (await callRoute('product.list', { query: { pageSize: 500 } })).rows.map((p) => ({
        value: p.id,
        label: `${p.name} (${p.code})`,
        row: p,
      })),
  });
}

export { Select };
