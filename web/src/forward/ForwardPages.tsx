import './i18n.ts';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { Box, Checkbox, Code, Flex, Heading, Text, TextArea, TextField } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import {
  forwardMessageTypes,
  forwardPerm as p,
  forwardRuleFields,
  forwardVariables,
  httpServerFields,
  maxForwardBatch,
  mqttAccesses,
  mqttAclFields,
  mqttServerCreateBody,
  mqttUserCreateBody,
  mqttUserPasswordBody,
} from '@iot/contracts';
import { outboundErrorText } from '@iot/contracts/ports/outbound-http.ts';
import { callRoute, type BulkAnswer } from '../api/client.ts';
import {
  deleteQuestion,
  labelled,
  PermittedRowButton,
  reportBulk,
  useBulkDelete,
  useListChange,
  useListDelete,
  useRecordDialog,
} from '../ui/crud.tsx';
import { Field, FormDialog, validate } from '../ui/form.tsx';
import { notice } from '../ui/feedback.tsx';
import { formatDate } from '../ui/format.ts';
import { Ellipsis } from '../ui/Ellipsis.tsx';
import { ListPage, type ListAction, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput, StatusBadge } from '../ui/widgets.tsx';

type ServerRow = Awaited<ReturnType<typeof callRoute<'forwardServer.listMqtt'>>>['rows'][number];
type RuleRow = Awaited<ReturnType<typeof callRoute<'forwardConfig.list'>>>['rows'][number];
type DeadRow = Awaited<ReturnType<typeof callRoute<'forwardConfig.dead'>>>['rows'][number];
type UserRow = Awaited<ReturnType<typeof callRoute<'mqttUser.list'>>>['rows'][number];
type AclRow = Awaited<ReturnType<typeof callRoute<'mqttAcl.list'>>>['rows'][number];

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const lang = (t: TFunction) => (t('forward.yes') === 'Yes' ? 'en' : 'zh');

/**
 * Add, edit (spec §8: exactly one service, 'only one service can be selected for editing'), delete after a confirm,
 * and the connection test of a list of servers.
 */
function serverActions<T extends { id: string; name: string }>(
  t: TFunction,
  perms: { add: string; edit: string; delete: string; test: string },
  handlers: { add: () => void; edit: (row: T) => void; remove: (rows: T[]) => Promise<unknown>; test: (row: T) => Promise<unknown> },
): ListAction<T>[] {
  return [
    { label: t('common.add'), permission: perms.add, select: 'none', onClick: handlers.add },
    {
      label: t('common.edit'),
      permission: perms.edit,
      select: 'some',
      variant: 'soft',
      onClick: (rows) => (rows.length > 1 ? (notice.warning(t('prompt.onlyOneService')), false) : handlers.edit(rows[0]!)),
    },
    { label: t('forward.test'), permission: perms.test, select: 'one', variant: 'soft', onClick: (rows) => handlers.test(rows[0]!) },
    { label: t('common.delete'), permission: perms.delete, select: 'some', color: 'red', variant: 'soft', onClick: handlers.remove },
  ];
}

function reportTest(t: TFunction, result: { ok: boolean; error: keyof typeof outboundErrorText | null; ms: number }) {
  if (result.ok) notice.success(t('forward.testOk', { ms: result.ms }));
  else notice.error(t('forward.testFailed', { reason: result.error ? outboundErrorText[result.error][lang(t)] : '' }));
}

// ---------------------------------------------------------------- MQTT servers
const MQTT_SERVERS = 'forwardMqttServers';
const emptyMqtt = { id: '', name: '', ip: '', port: '1883', username: '', password: '', clientId: '', tls: false, remark: '' };

function MqttServerDialog({ editing, onClose }: { editing: ServerRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const { form, run, done, dialog } = useRecordDialog<typeof emptyMqtt, ServerRow | 'new'>({
    editing,
    empty: emptyMqtt,
    queryKey: MQTT_SERVERS,
    onClose,
    valuesOf: (e) =>
      e && e !== 'new'
        ? {
            id: e.id,
            name: e.name,
            ip: e.ip,
            port: String(e.port),
            username: text(e.username),
            password: '',
            clientId: text(e.clientId),
            tls: e.tls,
            remark: text(e.remark),
          }
        : emptyMqtt,
  });
  const v = form.values;
  const submit = async () => {
    const body = {
      name: v.name,
      ip: v.ip,
      port: v.port === '' ? Number.NaN : Number(v.port),
      username: v.username || null,
      clientId: v.clientId || null,
      tls: v.tls,
      remark: v.remark || null,
      // On edit an empty password keeps the stored one.
      ...(v.password ? { password: v.password } : {}),
    };
    const checked = validate(mqttServerCreateBody, body, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      if (creating) await callRoute('forwardServer.createMqtt', { body });
      else await callRoute('forwardServer.updateMqtt', { body: { ...body, id: v.id } });
      await done(t(creating ? 'forward.mqttAdded' : 'forward.mqttEdited'));
    });
  };
  return (
    <FormDialog
      {...dialog}
      title={t(creating ? 'common.addObject' : 'common.editObject', { object: t('forward.objects.mqttServer') })}
      onSubmit={() => void submit()}
    >
      <div className="form-grid two">
        {(['name', 'ip', 'port', 'username', 'password', 'clientId', 'remark'] as const).map((k) => (
          <Field
            key={k}
            label={t(k === 'password' && !creating ? 'forward.passwordKeep' : `forward.${k}`)}
            required={k === 'name' || k === 'ip' || k === 'port'}
            error={form.errors[k]}
          >
            <TextField.Root
              name={k}
              value={v[k]}
              type={k === 'password' ? 'password' : 'text'}
              placeholder={k === 'ip' ? '192.168.1.10' : undefined}
              onChange={(e) => form.set(k, e.target.value)}
            />
          </Field>
        ))}
      </div>
      <Flex gap="2" align="center" asChild>
        <label>
          <Checkbox name="tls" checked={v.tls} onCheckedChange={(c) => form.set('tls', c === true)} />
          {t('forward.tls')}
        </label>
      </Flex>
    </FormDialog>
  );
}

function serverColumns(t: TFunction, type: 'mqtt' | 'http'): ListColumn<ServerRow>[] {
  const yesNo = (b: boolean) => t(b ? 'forward.yes' : 'forward.no');
  return [
    { id: 'name', header: t('forward.name'), value: (r) => r.name, sortable: true, width: 160 },
    ...(type === 'http'
      ? [
          {
            id: 'url',
            header: t('forward.url'),
            value: (r: ServerRow) => r.url,
            cell: (r: ServerRow) => <Ellipsis value={text(r.url)} />,
            width: 260,
          },
        ]
      : []),
    { id: 'ip', header: t('forward.ip'), value: (r) => r.ip, width: 140 },
    { id: 'port', header: t('forward.port'), value: (r) => r.port, width: 80 },
    ...(type === 'mqtt'
      ? [
          { id: 'username', header: t('forward.username'), value: (r: ServerRow) => r.username, width: 120 },
          { id: 'clientId', header: t('forward.clientId'), value: (r: ServerRow) => r.clientId, width: 140 },
          { id: 'hasPassword', header: t('forward.hasPassword'), value: (r: ServerRow) => yesNo(r.hasPassword), width: 90 },
        ]
      : []),
    { id: 'tls', header: t('forward.tls'), value: (r) => yesNo(r.tls), width: 80 },
    ...(type === 'http' ? [{ id: 'batchSize', header: t('forward.batchSize'), value: (r: ServerRow) => r.batchSize, width: 110 }] : []),
    { id: 'remark', header: t('forward.remark'), value: (r) => r.remark, width: 160 },
    { id: 'createTime', header: t('forward.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
}

/** MQTT servers forwarded to (spec §3 MQTT server, §5: IPv4, port up to 65535; §8 MQTT add/edit failed and succeeded). */
export function MqttServerPage() {
  return (
    <ServerListPage
      queryKey={MQTT_SERVERS}
      route="forwardServer.listMqtt"
      type="mqtt"
      object="forward.objects.mqttServer"
      perms={{ add: p.mqttServerAdd, edit: p.mqttServerEdit, delete: p.mqttServerDelete, test: p.mqttServerTest }}
      test={(id) => callRoute('forwardServer.testMqtt', { body: { id } })}
      remove={(ids) => callRoute('forwardServer.deleteMqtt', { query: { ids } })}
      deleted="forward.mqttDeleted"
      Dialog={MqttServerDialog}
    />
  );
}

// ---------------------------------------------------------------- HTTP servers
const HTTP_SERVERS = 'forwardHttpServers';
const emptyHttp = { id: '', name: '', url: '', remark: '', batchSize: '1' };

function HttpServerDialog({ editing, onClose }: { editing: ServerRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const { form, run, done, dialog } = useRecordDialog<typeof emptyHttp, ServerRow | 'new'>({
    editing,
    empty: emptyHttp,
    queryKey: HTTP_SERVERS,
    onClose,
    valuesOf: (e) =>
      e && e !== 'new' ? { id: e.id, name: e.name, url: text(e.url), remark: text(e.remark), batchSize: String(e.batchSize) } : emptyHttp,
  });
  const v = form.values;
  const submit = async () => {
    const batchSize = v.batchSize.trim() === '' ? 1 : Number(v.batchSize);
    const body = { name: v.name, url: v.url, remark: v.remark || null, batchSize };
    const checked = validate(httpServerFields, body, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      if (creating) await callRoute('forwardServer.createHttp', { body });
      else await callRoute('forwardServer.updateHttp', { body: { ...body, id: v.id } });
      await done(t(creating ? 'common.created' : 'common.saved'));
    });
  };
  return (
    <FormDialog
      {...dialog}
      title={t(creating ? 'common.addObject' : 'common.editObject', { object: t('forward.objects.httpServer') })}
      onSubmit={() => void submit()}
    >
      {(['name', 'url', 'remark'] as const).map((k) => (
        <Field key={k} label={t(`forward.${k}`)} required={k !== 'remark'} error={form.errors[k]}>
          <TextField.Root
            name={k}
            value={v[k]}
            placeholder={k === 'url' ? 'https://erp.example.com/iot' : undefined}
            onChange={(e) => form.set(k, e.target.value)}
          />
        </Field>
      ))}
      <Field label={t('forward.batchSize')} error={form.errors.batchSize}>
        <TextField.Root
          name="batchSize"
          type="number"
          min={1}
          max={maxForwardBatch}
          value={v.batchSize}
          onChange={(e) => form.set('batchSize', e.target.value)}
        />
        <Text size="1" color="gray">
          {t('forward.batchSizeHint')}
        </Text>
      </Field>
    </FormDialog>
  );
}

/** HTTP servers forwarded to (spec §3 HTTP server): each message POSTed to the URL, through the outbound guard. */
export function HttpServerPage() {
  return (
    <ServerListPage
      queryKey={HTTP_SERVERS}
      route="forwardServer.listHttp"
      type="http"
      object="forward.objects.httpServer"
      perms={{ add: p.httpServerAdd, edit: p.httpServerEdit, delete: p.httpServerDelete, test: p.httpServerTest }}
      test={(id) => callRoute('forwardServer.testHttp', { body: { id } })}
      remove={(ids) => callRoute('forwardServer.deleteHttp', { query: { ids } })}
      Dialog={HttpServerDialog}
    />
  );
}

/** A list of servers of one type (MQTT or HTTP): the same table, toolbar, connection test and dialog slot. */
function ServerListPage(props: {
  queryKey: string;
  route: 'forwardServer.listMqtt' | 'forwardServer.listHttp';
  type: 'mqtt' | 'http';
  /** The translation key of what one row is called. */
  object: string;
  perms: { add: string; edit: string; delete: string; test: string };
  test: (id: string) => Promise<{ ok: boolean; error: keyof typeof outboundErrorText | null; ms: number }>;
  remove: (ids: string) => Promise<BulkAnswer>;
  /** The translation key of the success message of a delete (the common one without it). */
  deleted?: string;
  Dialog: (dialog: { editing: ServerRow | 'new' | null; onClose: () => void }) => ReactNode;
}) {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<ServerRow | 'new' | null>(null);
  const deleteRows = useListDelete(props.queryKey);
  const { Dialog } = props;
  return (
    <>
      <ListPage<ServerRow>
        queryKey={props.queryKey}
        route={props.route}
        exportName={t(props.object)}
        columns={serverColumns(t, props.type)}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[{ name: 'name', label: t('forward.name') }]}
        actions={serverActions<ServerRow>(t, props.perms, {
          add: () => setEditing('new'),
          edit: setEditing,
          test: async (row) => reportTest(t, await props.test(row.id)),
          remove: (rows) =>
            deleteRows(
              deleteQuestion(
                t,
                t(props.object),
                rows.map((r) => r.name),
              ),
              async () => reportBulk(t, await props.remove(rows.map((r) => r.id).join(','))),
              props.deleted ? t(props.deleted) : undefined,
            ),
        })}
      />
      <Dialog editing={editing} onClose={() => setEditing(null)} />
    </>
  );
}

// ---------------------------------------------------------------- forwarding rules and dead letters
const RULES = 'forwardRules';
const DEAD = 'forwardDead';
const emptyRule = {
  id: '',
  name: '',
  productIds: [] as string[],
  deviceIds: [] as string[],
  messageTypes: ['telemetry'] as string[],
  serverId: '',
  topic: '',
  payloadTemplate: '',
  status: 'enabled',
};

function useServerOptions() {
  return useQuery({
    queryKey: ['forwardServers', 'options'],
    queryFn: async () => {
      const [mqtt, http] = await Promise.all([
        callRoute('forwardServer.listMqtt', { query: { pageSize: 500 } }),
        callRoute('forwardServer.listHttp', { query: { pageSize: 500 } }),
      ]);
      return [...mqtt.rows, ...http.rows].map((s) => ({ value: s.id, label: `${s.name} (${s.type.toUpperCase()})`, type: s.type }));
    },
  });
}

function RuleDialog({ editing, onClose }: { editing: RuleRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const servers = useServerOptions();
  const products = useQuery({
    queryKey: ['products', 'options'],
    queryFn: async () =>
      (await callRoute('product.list', { query: { pageSize: 500 } })).rows.map((x) => ({ value: x.id, label: `${x.name} (${x.code})` })),
  });
  const { form, run, done, dialog } = useRecordDialog<typeof emptyRule, RuleRow | 'new'>({
    editing,
    empty: emptyRule,
    queryKey: RULES,
    onClose,
    valuesOf: (e) =>
      e && e !== 'new'
        ? {
            id: e.id,
            name: e.name,
            productIds: e.productIds,
            deviceIds: e.deviceIds,
            messageTypes: e.messageTypes,
            serverId: e.serverId,
            topic: text(e.topic),
            payloadTemplate: text(e.payloadTemplate),
            status: e.status,
          }
        : emptyRule,
  });
  const v = form.values;
  const devices = useQuery({
    queryKey: ['devices', 'options', v.productIds],
    enabled: v.productIds.length > 0,
    queryFn: async () =>
      (
        await Promise.all(
          v.productIds.map(async (productId) => (await callRoute('device.list', { query: { productId, pageSize: 500 } })).rows),
        )
      )
        .flat()
        .map((d) => ({ value: d.id, label: `${d.name} (${d.sn})` })),
  });
  const toggle = (key: 'productIds' | 'deviceIds' | 'messageTypes', value: string, on: boolean) =>
    form.set(key, on ? [...new Set([...v[key], value])] : v[key].filter((x) => x !== value));
  const mqtt = servers.data?.find((s) => s.value === v.serverId)?.type === 'mqtt';
  const submit = async () => {
    const body = {
      name: v.name,
      productIds: v.productIds,
      deviceIds: v.deviceIds,
      messageTypes: forwardMessageTypes.filter((m) => v.messageTypes.includes(m)),
      serverId: v.serverId,
      topic: mqtt ? v.topic || null : null,
      payloadTemplate: v.payloadTemplate || null,
      status: v.status === 'stopped' ? ('stopped' as const) : ('enabled' as const),
    };
    const checked = validate(forwardRuleFields, body, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      if (creating) await callRoute('forwardConfig.create', { body });
      else await callRoute('forwardConfig.update', { body: { ...body, id: v.id } });
      await done(t(creating ? 'common.created' : 'common.saved'));
    });
  };
  const checks = (key: 'productIds' | 'deviceIds' | 'messageTypes', options: { value: string; label: string }[]) => (
    <Flex gap="4" wrap="wrap">
      {options.map((o) => (
        <Flex key={o.value} gap="2" align="center" asChild>
          <label>
            <Checkbox
              name={`${key}-${o.label}`}
              checked={v[key].includes(o.value)}
              onCheckedChange={(c) => toggle(key, o.value, c === true)}
            />
            {o.label}
          </label>
        </Flex>
      ))}
    </Flex>
  );
  const holes = (names: readonly string[]) => names.map((n) => `{{${n}}}`).join(' ');
  return (
    <FormDialog
      {...dialog}
      width="720px"
      title={t(creating ? 'common.addObject' : 'common.editObject', { object: t('forward.objects.rule') })}
      onSubmit={() => void submit()}
    >
      <Field label={t('forward.name')} required error={form.errors.name}>
        <TextField.Root name="name" value={v.name} onChange={(e) => form.set('name', e.target.value)} />
      </Field>
      <Field label={t('forward.server')} required error={form.errors.serverId}>
        <SelectInput
          name="serverId"
          value={v.serverId}
          onChange={(x) => form.set('serverId', x)}
          options={servers.data ?? []}
          placeholder={t('common.selectPlaceholder')}
        />
      </Field>
      <Field label={t('forward.products')} required error={form.errors.productIds}>
        {checks('productIds', products.data ?? [])}
      </Field>
      <Field label={t('forward.devices')} error={form.errors.deviceIds}>
        {checks('deviceIds', devices.data ?? [])}
      </Field>
      <Field label={t('forward.messageTypes')} required error={form.errors.messageTypes}>
        {checks('messageTypes', labelled(t, 'forward.types', forwardMessageTypes))}
      </Field>
      {mqtt && (
        <Field label={t('forward.topic')} error={form.errors.topic}>
          <TextField.Root name="topic" value={v.topic} onChange={(e) => form.set('topic', e.target.value)} />
          <Text size="1" color="gray">
            {t('forward.topicHint')} <Code>{holes(['deviceId', 'productId', 'type'])}</Code>
          </Text>
        </Field>
      )}
      <Field label={t('forward.payloadTemplate')} error={form.errors.payloadTemplate}>
        <TextArea name="payloadTemplate" rows={4} value={v.payloadTemplate} onChange={(e) => form.set('payloadTemplate', e.target.value)} />
        <Text size="1" color="gray">
          {t('forward.payloadHint')} <Code>{holes(forwardVariables)}</Code>
        </Text>
      </Field>
      <Field label={t('forward.status')}>
        <SelectInput
          name="status"
          value={v.status}
          onChange={(x) => form.set('status', x)}
          options={labelled(t, 'forward.statuses', ['enabled', 'stopped'])}
        />
      </Field>
    </FormDialog>
  );
}

/** Forwarding rules (issue 19), and below them the dead letters with "send again". */
export function ForwardRulesPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<RuleRow | 'new' | null>(null);
  const deleteRows = useBulkDelete<RuleRow>(RULES, 'forwardConfig.delete', t('forward.objects.rule'), (r) => r.name);
  const change = useListChange(DEAD);
  const deleteDead = useListDelete(DEAD);
  const removeDead = (rows: DeadRow[]) =>
    deleteDead(
      deleteQuestion(
        t,
        t('forward.deadObject'),
        rows.map((r) => t('forward.deadName', { device: r.deviceId })),
      ),
      () => callRoute('forwardConfig.deleteDead', { query: { ids: rows.map((r) => r.id).join(',') } }),
    );
  const columns: ListColumn<RuleRow>[] = [
    { id: 'name', header: t('forward.name'), value: (r) => r.name, sortable: true, width: 160 },
    { id: 'server', header: t('forward.server'), value: (r) => r.serverName, width: 160 },
    {
      id: 'messageTypes',
      header: t('forward.messageTypes'),
      value: (r) => r.messageTypes.map((m) => t(`forward.types.${m}`)).join(', '),
      width: 160,
    },
    { id: 'topic', header: t('forward.topic'), value: (r) => r.topic, width: 180 },
    {
      id: 'status',
      header: t('forward.status'),
      value: (r) => t(`forward.statuses.${r.status}`),
      cell: (r) => <StatusBadge value={r.status} />,
      width: 90,
    },
    { id: 'createTime', header: t('forward.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  const deadColumns: ListColumn<DeadRow>[] = [
    { id: 'device', header: t('forward.device'), value: (r) => r.deviceId, width: 200 },
    { id: 'payload', header: t('forward.payload'), value: (r) => r.payload, cell: (r) => <Ellipsis value={r.payload} />, width: 280 },
    // A rule chain's batch of the device's messages is one dead letter (its payload a JSON array of theirs).
    { id: 'messages', header: t('forward.messages'), value: (r) => r.messages, width: 80 },
    { id: 'attempts', header: t('forward.attempts'), value: (r) => r.attempts, width: 80 },
    {
      id: 'error',
      header: t('forward.error'),
      value: (r) =>
        r.error && r.error in outboundErrorText ? outboundErrorText[r.error as keyof typeof outboundErrorText][lang(t)] : r.error,
      width: 200,
    },
    { id: 'createTime', header: t('forward.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  return (
    <>
      <ListPage<RuleRow>
        queryKey={RULES}
        route="forwardConfig.list"
        exportName={t('forward.objects.rule')}
        columns={columns}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[{ name: 'name', label: t('forward.name') }]}
        actions={[
          { label: t('common.add'), permission: p.ruleAdd, select: 'none', onClick: () => setEditing('new') },
          { label: t('common.edit'), permission: p.ruleEdit, select: 'one', variant: 'soft', onClick: (rows) => setEditing(rows[0]!) },
          {
            label: t('common.delete'),
            permission: p.ruleDelete,
            select: 'some',
            color: 'red',
            variant: 'soft',
            onClick: deleteRows,
          },
        ]}
      />
      <RuleDialog editing={editing} onClose={() => setEditing(null)} />
      <Box mt="5">
        <Heading size="3" mb="2">
          {t('forward.dead')}
        </Heading>
        <ListPage<DeadRow>
          queryKey={DEAD}
          route="forwardConfig.dead"
          exportName={t('forward.dead')}
          columns={deadColumns}
          defaultSort={{ sort: 'createTime', order: 'desc' }}
          actions={[
            {
              label: t('forward.retry'),
              permission: p.deadRetry,
              select: 'some',
              onClick: (rows) =>
                change(
                  () => callRoute('forwardConfig.retry', { body: { ids: rows.map((r) => r.id) } }),
                  t('forward.retried', { count: rows.length }),
                ),
            },
            {
              label: t('common.delete'),
              permission: p.deadDelete,
              select: 'some',
              color: 'red',
              variant: 'soft',
              onClick: (rows) => removeDead(rows),
            },
          ]}
          rowActions={(r) => (
            <PermittedRowButton permission={p.deadDelete} label={t('common.delete')} danger onClick={() => void removeDead([r])} />
          )}
        />
      </Box>
    </>
  );
}

// ---------------------------------------------------------------- MQTT users and topics
const USERS = 'mqttUsers';
const emptyUser = { id: '', username: '', password: '', remark: '' };

function MqttUserDialog({ editing, onClose }: { editing: UserRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const { form, run, done, dialog } = useRecordDialog<typeof emptyUser, UserRow | 'new'>({
    editing,
    empty: emptyUser,
    queryKey: USERS,
    onClose,
    valuesOf: (e) => (e && e !== 'new' ? { id: e.id, username: e.username, password: '', remark: text(e.remark) } : emptyUser),
  });
  const v = form.values;
  const submit = async () => {
    const remark = v.remark || null;
    if (creating) {
      const body = { username: v.username, password: v.password, remark };
      const checked = validate(mqttUserCreateBody, body, t);
      if (!checked.ok) return form.setErrors(checked.errors);
    }
    await run(async () => {
      if (creating) await callRoute('mqttUser.create', { body: { username: v.username, password: v.password, remark } });
      else await callRoute('mqttUser.update', { body: { id: v.id, remark } });
      await done(t(creating ? 'forward.mqttAdded' : 'forward.mqttEdited'));
    });
  };
  return (
    <FormDialog
      {...dialog}
      title={t(creating ? 'common.addObject' : 'common.editObject', { object: t('forward.objects.mqttUser') })}
      onSubmit={() => void submit()}
    >
      <Field label={t('forward.username')} required error={form.errors.username}>
        <TextField.Root name="username" value={v.username} disabled={!creating} onChange={(e) => form.set('username', e.target.value)} />
      </Field>
      {creating && (
        <Field label={t('forward.password')} required error={form.errors.password}>
          <TextField.Root name="password" type="password" value={v.password} onChange={(e) => form.set('password', e.target.value)} />
        </Field>
      )}
      <Field label={t('forward.remark')} error={form.errors.remark}>
        <TextField.Root name="remark" value={v.remark} onChange={(e) => form.set('remark', e.target.value)} />
      </Field>
    </FormDialog>
  );
}

const emptyPassword = { id: '', oldPassword: '', newPassword: '' };
function PasswordDialog({ user, onClose }: { user: UserRow | null; onClose: () => void }) {
  const { t } = useTranslation();
  const { form, run, done, dialog } = useRecordDialog<typeof emptyPassword, UserRow>({
    editing: user,
    empty: emptyPassword,
    queryKey: USERS,
    onClose,
    valuesOf: (e) => ({ ...emptyPassword, id: e?.id ?? '' }),
  });
  const v = form.values;
  const submit = async () => {
    const checked = validate(mqttUserPasswordBody, v, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute('mqttUser.password', { body: v });
      await done(t('forward.passwordChanged'));
    });
  };
  return (
    <FormDialog {...dialog} title={`${t('forward.changePassword')} ${user?.username ?? ''}`} onSubmit={() => void submit()}>
      {(['oldPassword', 'newPassword'] as const).map((k) => (
        <Field key={k} label={t(`forward.${k}`)} required error={form.errors[k]}>
          <TextField.Root name={k} type="password" value={v[k]} onChange={(e) => form.set(k, e.target.value)} />
        </Field>
      ))}
    </FormDialog>
  );
}

/** MQTT users of the platform's broker (spec §3 MQTT auth user): username, password changed with the old one, remark. */
export function MqttUserPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<UserRow | 'new' | null>(null);
  const [password, setPassword] = useState<UserRow | null>(null);
  const deleteRows = useBulkDelete<UserRow>(
    USERS,
    'mqttUser.delete',
    t('forward.objects.mqttUser'),
    (r) => r.username,
    t('forward.mqttDeleted'),
  );
  const columns: ListColumn<UserRow>[] = [
    { id: 'username', header: t('forward.username'), value: (r) => r.username, sortable: true, width: 180 },
    { id: 'remark', header: t('forward.remark'), value: (r) => r.remark, width: 240 },
    { id: 'createTime', header: t('forward.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  return (
    <>
      <ListPage<UserRow>
        queryKey={USERS}
        route="mqttUser.list"
        exportName={t('forward.objects.mqttUser')}
        columns={columns}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[{ name: 'username', label: t('forward.username') }]}
        actions={[
          { label: t('common.add'), permission: p.mqttUserAdd, select: 'none', onClick: () => setEditing('new') },
          { label: t('common.edit'), permission: p.mqttUserEdit, select: 'one', variant: 'soft', onClick: (rows) => setEditing(rows[0]!) },
          {
            label: t('forward.changePassword'),
            permission: p.mqttUserEdit,
            select: 'one',
            variant: 'soft',
            onClick: (rows) => setPassword(rows[0]!),
          },
          {
            label: t('common.delete'),
            permission: p.mqttUserDelete,
            select: 'some',
            color: 'red',
            variant: 'soft',
            onClick: deleteRows,
          },
        ]}
      />
      <MqttUserDialog editing={editing} onClose={() => setEditing(null)} />
      <PasswordDialog user={password} onClose={() => setPassword(null)} />
    </>
  );
}

const ACLS = 'mqttAcls';
const emptyAcl = { id: '', mqttUserId: '', topic: '', access: 'subscribe' };

function AclDialog({ editing, onClose }: { editing: AclRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const users = useQuery({
    queryKey: [USERS, 'options'],
    queryFn: async () =>
      (await callRoute('mqttUser.list', { query: { pageSize: 500 } })).rows.map((u) => ({ value: u.id, label: u.username })),
  });
  const { form, run, done, dialog } = useRecordDialog<typeof emptyAcl, AclRow | 'new'>({
    editing,
    empty: emptyAcl,
    queryKey: ACLS,
    onClose,
    valuesOf: (e) => (e && e !== 'new' ? { id: e.id, mqttUserId: e.mqttUserId, topic: e.topic, access: e.access } : emptyAcl),
  });
  const v = form.values;
  const submit = async () => {
    const access = mqttAccesses.find((a) => a === v.access) ?? 'subscribe';
    const body = { mqttUserId: v.mqttUserId, topic: v.topic, access };
    const checked = validate(mqttAclFields, body, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      if (creating) await callRoute('mqttAcl.create', { body });
      else await callRoute('mqttAcl.update', { body: { ...body, id: v.id } });
      await done(t(creating ? 'forward.mqttAdded' : 'forward.mqttEdited'));
    });
  };
  return (
    <FormDialog
      {...dialog}
      title={t(creating ? 'common.addObject' : 'common.editObject', { object: t('forward.objects.mqttTopic') })}
      onSubmit={() => void submit()}
    >
      <Field label={t('forward.user')} required error={form.errors.mqttUserId}>
        <SelectInput
          name="mqttUserId"
          value={v.mqttUserId}
          onChange={(x) => form.set('mqttUserId', x)}
          options={users.data ?? []}
          placeholder={t('common.selectPlaceholder')}
        />
      </Field>
      <Field label={t('forward.topic')} required error={form.errors.topic}>
        <TextField.Root name="topic" value={v.topic} placeholder="plant/+/status" onChange={(e) => form.set('topic', e.target.value)} />
      </Field>
      <Field label={t('forward.access')} required error={form.errors.access}>
        <SelectInput
          name="access"
          value={v.access}
          onChange={(x) => form.set('access', x)}
          options={labelled(t, 'forward.accesses', mqttAccesses)}
        />
      </Field>
    </FormDialog>
  );
}

/** Topic rules of MQTT users (spec §3 MQTT topic, §9 access subscribe, publish or both): topic and access required. */
export function MqttTopicPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<AclRow | 'new' | null>(null);
  const deleteRows = useBulkDelete<AclRow>(
    ACLS,
    'mqttAcl.delete',
    t('forward.objects.mqttTopic'),
    (r) => r.topic,
    t('forward.mqttDeleted'),
  );
  const columns: ListColumn<AclRow>[] = [
    { id: 'username', header: t('forward.user'), value: (r) => r.username, width: 160 },
    { id: 'topic', header: t('forward.topic'), value: (r) => r.topic, sortable: true, width: 240 },
    { id: 'access', header: t('forward.access'), value: (r) => t(`forward.accesses.${r.access}`), width: 140 },
    { id: 'createTime', header: t('forward.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  return (
    <>
      <ListPage<AclRow>
        queryKey={ACLS}
        route="mqttAcl.list"
        exportName={t('forward.objects.mqttTopic')}
        columns={columns}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[{ name: 'topic', label: t('forward.topic') }]}
        actions={[
          { label: t('common.add'), permission: p.mqttTopicAdd, select: 'none', onClick: () => setEditing('new') },
          { label: t('common.edit'), permission: p.mqttTopicEdit, select: 'one', variant: 'soft', onClick: (rows) => setEditing(rows[0]!) },
          {
            label: t('common.delete'),
            permission: p.mqttTopicDelete,
            select: 'some',
            color: 'red',
            variant: 'soft',
            onClick: deleteRows,
          },
        ]}
      />
      <AclDialog editing={editing} onClose={() => setEditing(null)} />
    </>
  );
}
