import './i18n.ts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { Button, Dialog, Flex, Table, Text, TextField } from '@radix-ui/themes';
import { storageModes, templateProtocols, uploadStrategies, variableAttributes } from '@iot/contracts/device/model.ts';
import { devicePerm } from '@iot/contracts/device/permissions.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { crudActions, PermittedRowButton, useListChange, useEachDelete, useRecordDialog } from '../ui/crud.tsx';
import { notice } from '../ui/feedback.tsx';
import { Field, FormDialog, checkBody } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput } from '../ui/widgets.tsx';
import { useProductOptions } from './ProductsPage.tsx';

type TemplateRow = Awaited<ReturnType<typeof callRoute<'template.list'>>>['rows'][number];
const TEMPLATES = 'templates';
const empty = {
  id: '',
  name: '',
  productId: '',
  protocol: 'modbus-rtu',
  acquisitionPeriod: '10',
  frequency: '1',
  storageMode: 'both',
  upload: 'periodic',
  retentionDays: '365',
  remark: '',
};

function TemplateDialog({ editing, onClose }: { editing: TemplateRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const products = useProductOptions();
  const { form, run, done, dialog } = useRecordDialog({
    editing,
    empty,
    queryKey: TEMPLATES,
    onClose,
    valuesOf: (e) =>
      e && e !== 'new'
        ? { ...empty, ...Object.fromEntries(Object.keys(empty).map((k) => [k, String((e as Record<string, unknown>)[k] ?? '')])) }
        : empty,
  });
  const submit = async () => {
    const v = form.values;
    const body = {
      name: v.name,
      productId: v.productId,
      protocol: v.protocol,
      acquisitionPeriod: Number(v.acquisitionPeriod),
      frequency: Number(v.frequency),
      storageMode: v.storageMode,
      upload: v.upload,
      retentionDays: Number(v.retentionDays),
      remark: v.remark || null,
    };
    const checked = creating ? checkBody('template.create', body, t) : checkBody('template.update', { ...body, id: v.id }, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute(checked.route, { body: checked.data });
      await done(t(creating ? 'common.created' : 'common.saved'));
    });
  };
  const opts = (prefix: string, values: readonly string[]) => values.map((v) => ({ value: v, label: t(`fleet.${prefix}.${v}`) }));
  return (
    <FormDialog
      {...dialog}
      width="600px"
      title={t(creating ? 'common.addObject' : 'common.editObject', { object: t('objects.template') })}
      onSubmit={() => void submit()}
    >
      <Field label={t('fleet.name')} required error={form.errors.name}>
        <TextField.Root {...form.input('name')} />
      </Field>
      <Field label={t('fleet.product')} required error={form.errors.productId}>
        <SelectInput {...form.select('productId')} options={products.data ?? []} placeholder={t('common.selectPlaceholder')} />
      </Field>
      <Field label={t('fleet.protocol')} required>
        <SelectInput
          {...form.select('protocol')}
          options={templateProtocols.map((v) => ({ value: v, label: t(`fleet.templateProtocols.${v}`) }))}
        />
      </Field>
      <Field label={t('fleet.acquisitionPeriod')} required error={form.errors.acquisitionPeriod}>
        <TextField.Root {...form.input('acquisitionPeriod')} />
      </Field>
      <Field label={t('fleet.frequency')} error={form.errors.frequency}>
        <TextField.Root {...form.input('frequency')} />
      </Field>
      <Field label={t('fleet.storageMode')}>
        <SelectInput {...form.select('storageMode')} options={opts('storageModes', storageModes)} />
      </Field>
      <Field label={t('fleet.upload_')}>
        <SelectInput {...form.select('upload')} options={opts('strategies', uploadStrategies)} />
      </Field>
      <Field label={t('fleet.retentionDays')} error={form.errors.retentionDays}>
        <TextField.Root {...form.input('retentionDays')} />
      </Field>
      <Field label={t('fleet.remark')}>
        <TextField.Root {...form.input('remark')} />
      </Field>
    </FormDialog>
  );
}

/** A template's variables: each names a property of the product's thing model; Modbus addressing optional. */
function VariablesDialog({ template, onClose }: { template: TemplateRow | null; onClose: () => void }) {
  const { t } = useTranslation();
  const change = useListChange(TEMPLATES);
  const [identifier, setIdentifier] = useState('');
  const [attribute, setAttribute] = useState<(typeof variableAttributes)[number]>('CLIENT');
  const [register, setRegister] = useState('');
  const product = useQuery({
    queryKey: ['product', template?.productId],
    queryFn: () => callRoute('product.detail', { query: { id: template!.productId } }),
    enabled: !!template,
  });
  if (!template) return null;
  const properties = (product.data?.functions ?? []).filter((f) => f.type === 'property');
  const add = () =>
    change(async () => {
      const fn = properties.find((f) => f.identifier === identifier);
      await callRoute('template.defineVariable', {
        body: {
          templateId: template.id,
          name: String(fn?.name ?? identifier),
          attribute,
          identifier,
          modbus: register ? { slaveAddress: 1, functionCode: 3, registerAddress: Number(register), dataFormat: 'float32' } : null,
        },
      });
      onClose();
    }, t('common.saved'));
  return (
    <Dialog.Root open onOpenChange={(o) => !o && onClose()}>
      <Dialog.Content maxWidth="760px" aria-describedby={undefined}>
        <Dialog.Title>
          {template.name} · {t('fleet.variables')}
        </Dialog.Title>
        <Table.Root size="1" variant="surface" mb="3">
          <Table.Body>
            {template.variables.length === 0 && (
              <Table.Row>
                <Table.Cell>
                  <Text color="gray">{t('common.noData')}</Text>
                </Table.Cell>
              </Table.Row>
            )}
            {template.variables.map((v) => (
              <Table.Row key={String(v.identifier)}>
                <Table.Cell>{String(v.name)}</Table.Cell>
                <Table.Cell>{String(v.identifier)}</Table.Cell>
                <Table.Cell>{t(`fleet.attributes.${String(v.attribute)}`)}</Table.Cell>
                <Table.Cell>{v.modbus ? `#${(v.modbus as { registerAddress: number }).registerAddress}` : '--'}</Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
        <Flex gap="2" align="end" wrap="wrap">
          <Field label={t('fleet.identifier')} required>
            <SelectInput
              value={identifier}
              onChange={setIdentifier}
              options={properties.map((f) => ({ value: String(f.identifier), label: `${String(f.name)} (${String(f.identifier)})` }))}
            />
          </Field>
          <Field label={t('fleet.attribute')}>
            <SelectInput
              value={attribute}
              onChange={(picked) => setAttribute(variableAttributes.find((a) => a === picked) ?? 'CLIENT')}
              options={variableAttributes.map((v) => ({ value: v, label: t(`fleet.attributes.${v}`) }))}
            />
          </Field>
          <Field label={t('fleet.modbusRegister')}>
            <TextField.Root value={register} onChange={(e) => setRegister(e.target.value)} />
          </Field>
          <Button onClick={() => void add()} disabled={!identifier}>
            {t('common.add')}
          </Button>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}

export function TemplatesPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<TemplateRow | 'new' | null>(null);
  const [variables, setVariables] = useState<TemplateRow | null>(null);
  const deleteRows = useEachDelete<TemplateRow>(TEMPLATES, 'template.delete', t('objects.template'), (r) => r.name);
  const columns: ListColumn<TemplateRow>[] = [
    { id: 'name', header: t('fleet.name'), value: (r) => r.name, sortable: true, width: 180 },
    { id: 'product', header: t('fleet.product'), value: (r) => r.productName, width: 140 },
    { id: 'protocol', header: t('fleet.protocol'), value: (r) => r.protocol, width: 110 },
    { id: 'acquisitionPeriod', header: t('fleet.acquisitionPeriod'), value: (r) => r.acquisitionPeriod, width: 120 },
    { id: 'storageMode', header: t('fleet.storageMode'), value: (r) => t(`fleet.storageModes.${r.storageMode}`), width: 100 },
    { id: 'retentionDays', header: t('fleet.retentionDays'), value: (r) => r.retentionDays, width: 100 },
    { id: 'variables', header: t('fleet.variables'), value: (r) => r.variables.length, width: 70 },
    { id: 'deviceCount', header: t('fleet.devices'), value: (r) => r.deviceCount, width: 70 },
    { id: 'createTime', header: t('fleet.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  return (
    <>
      <ListPage<TemplateRow>
        queryKey={TEMPLATES}
        route="template.list"
        exportName={t('fleet.templates')}
        columns={columns}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[{ name: 'name', label: t('fleet.name') }]}
        actions={crudActions<TemplateRow>(
          t,
          { add: devicePerm.templateAdd, edit: devicePerm.templateEdit, delete: devicePerm.templateDelete },
          {
            add: () => setEditing('new'),
            edit: setEditing,
            remove: deleteRows,
          },
        )}
        rowActions={(row) => (
          <>
            <PermittedRowButton permission={devicePerm.templateEdit} label={t('fleet.variables')} onClick={() => setVariables(row)} />
            <PermittedRowButton
              permission={devicePerm.templateApply}
              label={t('fleet.applyTemplate')}
              onClick={() =>
                void callRoute('template.apply', { body: { id: row.id } })
                  .then((r) => notice.success(t('fleet.bulkResult', r)))
                  .catch((e: unknown) => notice.error(messageOf(e)))
              }
            />
          </>
        )}
      />
      <TemplateDialog editing={editing} onClose={() => setEditing(null)} />
      <VariablesDialog template={variables} onClose={() => setVariables(null)} />
    </>
  );
}
