import './i18n.ts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TextField } from '@radix-ui/themes';
import { storageModes, uploadStrategies } from '@iot/contracts/device/model.ts';
import { devicePerm } from '@iot/contracts/device/permissions.ts';
import { useQuery } from '@tanstack/react-query';
import { callRoute } from '../api/client.ts';
import { crudActions, useEachDelete, useRecordDialog } from '../ui/crud.tsx';
import { Field, FormDialog, checkBody } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput } from '../ui/widgets.tsx';

type ConfigRow = Awaited<ReturnType<typeof callRoute<'mqttConfig.list'>>>['rows'][number];
const CONFIGS = 'mqttConfigs';

/** Spec §3 MQTT config: every device-side field, as text in the form and numbers on the wire. */
const numeric = [
  'port',
  'heartbeat',
  'reportInterval',
  'qos',
  'reconnectSeconds',
  'packageCount',
  'packageTimeMs',
  'cycleSeconds',
  'maxRecords',
] as const;
const texts = [
  'name',
  'serviceName',
  'ip',
  'clientId',
  'username',
  'password',
  'uplinkTopic',
  'downlinkTopic',
  'uploadPlatform',
  'controlCommand',
  'dataEntry',
  'dataExit',
] as const;
const empty: Record<string, string> = {
  id: '',
  gatewayId: '',
  protocol: 'mqtt',
  reportSaveMode: 'both',
  strategy: 'periodic',
  ...Object.fromEntries(texts.map((k) => [k, ''])),
  port: '1883',
  heartbeat: '60',
  reportInterval: '60',
  qos: '1',
  reconnectSeconds: '5',
  packageCount: '100',
  packageTimeMs: '1000',
  cycleSeconds: '60',
  maxRecords: '10000',
};
const labels: Record<string, [string, string]> = {
  name: ['名称', 'Name'],
  serviceName: ['服务名称', 'Service name'],
  ip: ['IP', 'IP'],
  port: ['端口', 'Port'],
  clientId: ['客户端 ID', 'Client ID'],
  username: ['用户名', 'Username'],
  password: ['密码（留空不修改）', 'Password (empty keeps it)'],
  heartbeat: ['心跳（秒）', 'Heartbeat (s)'],
  reportInterval: ['上报间隔（秒）', 'Report interval (s)'],
  qos: ['传输质量 QoS', 'Transfer quality (QoS)'],
  reconnectSeconds: ['重连时间（秒）', 'Reconnection time (s)'],
  uplinkTopic: ['上行主题', 'Uplink topic'],
  downlinkTopic: ['下行主题', 'Downlink topic'],
  uploadPlatform: ['上传平台', 'Upload platform'],
  controlCommand: ['控制指令', 'Control command'],
  packageCount: ['单包条数', 'Single-package count'],
  packageTimeMs: ['单包时间（毫秒）', 'Single-package time (ms)'],
  dataEntry: ['数据入口', 'Data entry'],
  dataExit: ['数据出口', 'Data exit'],
  reportSaveMode: ['上报存储模式', 'Report-and-save mode'],
  strategy: ['策略', 'Strategy'],
  cycleSeconds: ['周期（秒）', 'Cycle (s)'],
  maxRecords: ['最大记录数', 'Max records'],
  protocol: ['协议', 'Protocol'],
};

function ConfigDialog({ editing, onClose }: { editing: ConfigRow | 'new' | null; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const label = (k: string) => labels[k]![i18n.language === 'en' ? 1 : 0];
  const creating = editing === 'new';
  const gateways = useQuery({
    queryKey: ['gateways', 'options'],
    queryFn: async () =>
      (await callRoute('gateway.list', { query: { pageSize: 500 } })).rows.map((g) => ({ value: g.id, label: `${g.name} (${g.sn})` })),
  });
  const { form, run, done, dialog } = useRecordDialog({
    editing,
    empty,
    queryKey: CONFIGS,
    onClose,
    valuesOf: (e) =>
      e && e !== 'new'
        ? {
            ...empty,
            ...Object.fromEntries(Object.entries(e).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)])),
            password: '',
          }
        : empty,
  });
  const submit = async () => {
    const v = form.values;
    const body: Record<string, unknown> = {
      gatewayId: v.gatewayId,
      protocol: v.protocol,
      reportSaveMode: v.reportSaveMode,
      strategy: v.strategy,
    };
    for (const k of texts)
      body[k] = v[k] === '' ? (['name', 'serviceName', 'ip', 'clientId', 'uplinkTopic', 'downlinkTopic'].includes(k) ? '' : null) : v[k];
    for (const k of numeric) body[k] = v[k] === '' ? undefined : Number(v[k]);
    const checked = creating ? checkBody('mqttConfig.create', body, t) : checkBody('mqttConfig.update', { ...body, id: v.id }, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute(checked.route, { body: checked.data });
      await done(t(creating ? 'common.created' : 'common.saved'));
    });
  };
  return (
    <FormDialog
      {...dialog}
      width="720px"
      title={t(creating ? 'common.addObject' : 'common.editObject', { object: t('objects.mqttConfig') })}
      onSubmit={() => void submit()}
    >
      <Field label={t('fleet.gateway')} required error={form.errors.gatewayId}>
        <SelectInput
          value={form.values.gatewayId}
          onChange={(v) => form.set('gatewayId', v)}
          options={gateways.data ?? []}
          placeholder={t('common.selectPlaceholder')}
        />
      </Field>
      <Field label={label('protocol')}>
        <SelectInput
          value={form.values.protocol}
          onChange={(v) => form.set('protocol', v)}
          options={['mqtt', 'mqtts', 'ws', 'wss'].map((x) => ({ value: x, label: x }))}
        />
      </Field>
      {[...texts, ...numeric].map((k) => (
        <Field
          key={k}
          label={label(k)}
          required={['name', 'serviceName', 'ip', 'port', 'clientId', 'uplinkTopic', 'downlinkTopic'].includes(k)}
          error={form.errors[k]}
        >
          <TextField.Root
            name={k}
            value={form.values[k] ?? ''}
            onChange={(e) => form.set(k, e.target.value)}
            type={k === 'password' ? 'password' : 'text'}
          />
        </Field>
      ))}
      <Field label={label('reportSaveMode')}>
        <SelectInput
          value={form.values.reportSaveMode}
          onChange={(v) => form.set('reportSaveMode', v)}
          options={storageModes.map((x) => ({ value: x, label: t(`fleet.storageModes.${x}`) }))}
        />
      </Field>
      <Field label={label('strategy')}>
        <SelectInput
          value={form.values.strategy}
          onChange={(v) => form.set('strategy', v)}
          options={uploadStrategies.map((x) => ({ value: x, label: t(`fleet.strategies.${x}`) }))}
        />
      </Field>
    </FormDialog>
  );
}

/** The MQTT configs of gateways (spec §3): passwords are never shown, an empty one on edit keeps the old. */
export function MqttConfigsPage() {
  const { t, i18n } = useTranslation();
  const label = (k: string) => labels[k]![i18n.language === 'en' ? 1 : 0];
  const [editing, setEditing] = useState<ConfigRow | 'new' | null>(null);
  const deleteRows = useEachDelete<ConfigRow>(CONFIGS, 'mqttConfig.delete', t('objects.mqttConfig'), (r) => r.name);
  const columns: ListColumn<ConfigRow>[] = [
    { id: 'name', header: label('name'), value: (r) => r.name, sortable: true, width: 150 },
    { id: 'gateway', header: t('fleet.gateway'), value: (r) => r.gatewayName, width: 140 },
    { id: 'ip', header: label('ip'), value: (r) => `${r.ip}:${r.port}`, width: 150 },
    { id: 'clientId', header: label('clientId'), value: (r) => r.clientId, width: 140 },
    { id: 'qos', header: 'QoS', value: (r) => r.qos, width: 60 },
    { id: 'uplinkTopic', header: label('uplinkTopic'), value: (r) => r.uplinkTopic, width: 160 },
    { id: 'downlinkTopic', header: label('downlinkTopic'), value: (r) => r.downlinkTopic, width: 160 },
    { id: 'createTime', header: t('fleet.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  return (
    <>
      <ListPage<ConfigRow>
        queryKey={CONFIGS}
        route="mqttConfig.list"
        exportName={t('objects.mqttConfig')}
        columns={columns}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[{ name: 'name', label: label('name') }]}
        actions={crudActions<ConfigRow>(
          t,
          { add: devicePerm.mqttConfigAdd, edit: devicePerm.mqttConfigEdit, delete: devicePerm.mqttConfigDelete },
          {
            add: () => setEditing('new'),
            edit: setEditing,
            remove: deleteRows,
          },
        )}
      />
      <ConfigDialog editing={editing} onClose={() => setEditing(null)} />
    </>
  );
}
