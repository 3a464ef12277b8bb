import './i18n.ts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Badge, Box, Checkbox, Code, Flex, Text, TextArea, TextField } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { alarmPerm, notifySendWays, notifySources, notifyTypes, renderTemplate, sampleValues, templateVariables } from '@iot/contracts';
import { callRoute } from '../api/client.ts';
import { crudActions, PermittedRowButton, useBulkDelete, useListChange, useRecordDialog } from '../ui/crud.tsx';
import { Field, FormDialog, checkBody } from '../ui/form.tsx';
import { notice } from '../ui/feedback.tsx';
import { formatDate } from '../ui/format.ts';
import { Ellipsis } from '../ui/Ellipsis.tsx';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput, StatusBadge } from '../ui/widgets.tsx';
import { useGroupOptions } from '../fleet/groups.ts';

type ContactRow = Awaited<ReturnType<typeof callRoute<'contact.list'>>>['rows'][number];
type TemplateRow = Awaited<ReturnType<typeof callRoute<'notifyTemplate.list'>>>['rows'][number];
type ConfigRow = Awaited<ReturnType<typeof callRoute<'notifyConfig.list'>>>['rows'][number];
type RecordRow = Awaited<ReturnType<typeof callRoute<'notifyRecord.list'>>>['rows'][number];

const asText = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const options = (t: (k: string) => string, prefix: string, values: readonly string[]) =>
  values.map((v) => ({ value: v, label: t(`${prefix}.${v}`) }));

// ---------------------------------------------------------------- contacts
const CONTACTS = 'contacts';
const emptyContact = { id: '', name: '', phone: '', email: '', emailActivated: false, wechat: '', remark: '' };

function ContactDialog({ editing, onClose }: { editing: ContactRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const { form, run, done, dialog } = useRecordDialog<typeof emptyContact, ContactRow | 'new'>({
    editing,
    empty: emptyContact,
    queryKey: CONTACTS,
    onClose,
    valuesOf: (e) =>
      e && e !== 'new'
        ? {
            id: e.id,
            name: e.name,
            phone: asText(e.phone),
            email: e.email,
            emailActivated: e.emailActivated,
            wechat: asText(e.wechat),
            remark: asText(e.remark),
          }
        : emptyContact,
  });
  const v = form.values;
  const submit = async () => {
    const body = {
      name: v.name,
      phone: v.phone || null,
      email: v.email,
      emailActivated: v.emailActivated,
      wechat: v.wechat || null,
      remark: v.remark || null,
    };
    const checked = checkBody(creating ? 'contact.create' : 'contact.update', creating ? body : { ...body, id: v.id }, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute(checked.route, { body: checked.data });
      await done(t(creating ? 'common.created' : 'common.saved'));
    });
  };
  return (
    <FormDialog
      {...dialog}
      title={t(creating ? 'common.addObject' : 'common.editObject', { object: t('objects.contact') })}
      onSubmit={() => void submit()}
    >
      {(['name', 'phone', 'email', 'wechat', 'remark'] as const).map((k) => (
        <Field key={k} label={t(`notify.${k}`)} required={k === 'name' || k === 'email'} error={form.errors[k]}>
          <TextField.Root name={k} value={v[k]} maxLength={k === 'name' ? 20 : undefined} onChange={(e) => form.set(k, e.target.value)} />
        </Field>
      ))}
      <Flex gap="2" align="center" asChild>
        <label>
          <Checkbox name="emailActivated" checked={v.emailActivated} onCheckedChange={(c) => form.set('emailActivated', c === true)} />
          {t('notify.emailActivated')}
        </label>
      </Flex>
    </FormDialog>
  );
}

/** Alert contacts (spec §3 Contact, §5): name at most 20, email required and well-formed, WeChat ID checked. */
export function ContactsPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<ContactRow | 'new' | null>(null);
  const deleteRows = useBulkDelete<ContactRow>(CONTACTS, 'contact.delete', t('objects.contact'), (r) => r.name);
  const columns: ListColumn<ContactRow>[] = [
    { id: 'name', header: t('notify.name'), value: (r) => r.name, sortable: true, width: 120 },
    { id: 'phone', header: t('notify.phone'), value: (r) => r.phone, width: 130 },
    { id: 'email', header: t('notify.email'), value: (r) => r.email, width: 200 },
    {
      id: 'emailActivated',
      header: t('notify.emailActivated'),
      value: (r) => t(r.emailActivated ? 'notify.activated' : 'notify.notActivated'),
      cell: (r) => (
        <Badge color={r.emailActivated ? 'green' : 'gray'}>{t(r.emailActivated ? 'notify.activated' : 'notify.notActivated')}</Badge>
      ),
      width: 110,
    },
    { id: 'wechat', header: t('notify.wechat'), value: (r) => r.wechat, width: 120 },
    { id: 'remark', header: t('notify.remark'), value: (r) => r.remark, width: 160 },
    { id: 'createTime', header: t('notify.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  return (
    <>
      <ListPage<ContactRow>
        queryKey={CONTACTS}
        route="contact.list"
        exportName={t('notify.contacts')}
        columns={columns}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[{ name: 'name', label: t('notify.name') }]}
        actions={crudActions<ContactRow>(
          t,
          { add: alarmPerm.contactAdd, edit: alarmPerm.contactEdit, delete: alarmPerm.contactDelete },
          {
            add: () => setEditing('new'),
            edit: setEditing,
            remove: deleteRows,
          },
        )}
      />
      <ContactDialog editing={editing} onClose={() => setEditing(null)} />
    </>
  );
}

// ---------------------------------------------------------------- templates
const TEMPLATES = 'notifyTemplates';
const emptyTemplate = { id: '', code: '', name: '', type: 'email', subject: '', content: '' };

function TemplateDialog({ editing, onClose }: { editing: TemplateRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const { form, run, done, dialog } = useRecordDialog<typeof emptyTemplate, TemplateRow | 'new'>({
    editing,
    empty: emptyTemplate,
    queryKey: TEMPLATES,
    onClose,
    valuesOf: (e) =>
      e && e !== 'new'
        ? { id: e.id, code: e.code, name: e.name, type: e.type, subject: asText(e.subject), content: e.content }
        : emptyTemplate,
  });
  const v = form.values;
  const submit = async () => {
    const body = { code: v.code, name: v.name, type: v.type, subject: v.subject || null, content: v.content };
    const checked = checkBody(creating ? 'notifyTemplate.create' : 'notifyTemplate.update', creating ? body : { ...body, id: v.id }, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute(checked.route, { body: checked.data });
      await done(t(creating ? 'common.created' : 'common.saved'));
    });
  };
  return (
    <FormDialog
      {...dialog}
      width="640px"
      title={t(creating ? 'common.addObject' : 'common.editObject', { object: t('objects.notifyTemplate') })}
      onSubmit={() => void submit()}
    >
      <div className="form-grid two">
        <Field label={t('notify.code')} required error={form.errors.code}>
          <TextField.Root name="code" value={v.code} onChange={(e) => form.set('code', e.target.value)} />
        </Field>
        <Field label={t('notify.templateName')} required error={form.errors.name}>
          <TextField.Root name="name" value={v.name} onChange={(e) => form.set('name', e.target.value)} />
        </Field>
        <Field label={t('notify.type')} required error={form.errors.type}>
          <SelectInput name="type" value={v.type} onChange={(x) => form.set('type', x)} options={options(t, 'notify.types', notifyTypes)} />
        </Field>
        <Field label={t('notify.subject')} error={form.errors.subject}>
          <TextField.Root name="subject" value={v.subject} onChange={(e) => form.set('subject', e.target.value)} />
        </Field>
      </div>
      <Field
        label={t('notify.content')}
        required
        error={form.errors.content}
        hint={`${t('notify.variables')}: ${templateVariables.map((x) => `{{${x}}}`).join(' ')}`}
      >
        <TextArea name="content" rows={4} value={v.content} onChange={(e) => form.set('content', e.target.value)} />
      </Field>
      <Box className="template-preview" data-testid="template-preview">
        <Text size="1" color="gray">
          {t('notify.preview')}
        </Text>
        <Text as="div" weight="medium">
          {renderTemplate(v.subject, sampleValues)}
        </Text>
        <Text as="div" size="2" style={{ whiteSpace: 'pre-wrap' }}>
          {renderTemplate(v.content, sampleValues)}
        </Text>
      </Box>
    </FormDialog>
  );
}

/** Notification templates (spec §3): ID, name, type and content with variables, previewed as it is typed. */
export function NotifyTemplatesPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<TemplateRow | 'new' | null>(null);
  const deleteRows = useBulkDelete<TemplateRow>(TEMPLATES, 'notifyTemplate.delete', t('objects.notifyTemplate'), (r) => r.name);
  const columns: ListColumn<TemplateRow>[] = [
    { id: 'code', header: t('notify.code'), value: (r) => r.code, sortable: true, width: 120 },
    { id: 'name', header: t('notify.templateName'), value: (r) => r.name, sortable: true, width: 140 },
    { id: 'type', header: t('notify.type'), value: (r) => t(`notify.types.${r.type}`), width: 80 },
    { id: 'subject', header: t('notify.subject'), value: (r) => r.subject, width: 160 },
    {
      id: 'content',
      header: t('notify.content'),
      value: (r) => r.content,
      cell: (r) => <Code variant="ghost">{r.content}</Code>,
      width: 280,
    },
    { id: 'createTime', header: t('notify.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  return (
    <>
      <ListPage<TemplateRow>
        queryKey={TEMPLATES}
        route="notifyTemplate.list"
        exportName={t('notify.template')}
        columns={columns}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[
          { name: 'name', label: t('notify.templateName') },
          { name: 'type', label: t('notify.type'), type: 'select', options: options(t, 'notify.types', notifyTypes) },
        ]}
        actions={crudActions<TemplateRow>(
          t,
          { add: alarmPerm.templateAdd, edit: alarmPerm.templateEdit, delete: alarmPerm.templateDelete },
          {
            add: () => setEditing('new'),
            edit: setEditing,
            remove: deleteRows,
          },
        )}
      />
      <TemplateDialog editing={editing} onClose={() => setEditing(null)} />
    </>
  );
}

// ---------------------------------------------------------------- configurations
const CONFIGS = 'notifyConfigs';
const emptyConfig = {
  id: '',
  name: '',
  source: 'alarm',
  groupId: '',
  type: 'email',
  templateId: '',
  sendWays: ['email'] as string[],
  contactIds: [] as string[],
  minLevel: '1',
  status: 'enabled',
};

function ConfigDialog({ editing, onClose }: { editing: ConfigRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const { form, run, done, dialog } = useRecordDialog<typeof emptyConfig, ConfigRow | 'new'>({
    editing,
    empty: emptyConfig,
    queryKey: CONFIGS,
    onClose,
    valuesOf: (e) =>
      e && e !== 'new'
        ? {
            id: e.id,
            name: e.name,
            source: e.source,
            groupId: asText(e.groupId),
            type: e.type,
            templateId: e.templateId,
            sendWays: e.sendWays,
            contactIds: e.contactIds,
            minLevel: String(e.minLevel),
            status: e.status,
          }
        : emptyConfig,
  });
  const open = editing !== null;
  const templates = useQuery({
    queryKey: [TEMPLATES, 'options'],
    enabled: open,
    queryFn: async () =>
      (await callRoute('notifyTemplate.list', { query: { pageSize: 500 } })).rows.map((x) => ({
        value: x.id,
        label: `${x.name} (${x.code})`,
      })),
  });
  const contacts = useQuery({
    queryKey: [CONTACTS, 'options'],
    enabled: open,
    queryFn: async () => (await callRoute('contact.list', { query: { pageSize: 500 } })).rows,
  });
  const groups = useGroupOptions();
  const v = form.values;
  const toggle = (key: 'sendWays' | 'contactIds', value: string, on: boolean) =>
    form.set(key, on ? [...new Set([...v[key], value])] : v[key].filter((x) => x !== value));
  const submit = async () => {
    const body = {
      name: v.name,
      source: v.source,
      groupId: v.groupId || null,
      type: v.type,
      templateId: v.templateId,
      sendWays: v.sendWays,
      contactIds: v.contactIds,
      minLevel: Number(v.minLevel),
      status: v.status,
    };
    const checked = checkBody(creating ? 'notifyConfig.create' : 'notifyConfig.update', creating ? body : { ...body, id: v.id }, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute(checked.route, { body: checked.data });
      await done(t(creating ? 'common.created' : 'common.saved'));
    });
  };
  return (
    <FormDialog
      {...dialog}
      width="680px"
      title={t(creating ? 'common.addObject' : 'common.editObject', { object: t('objects.notifyConfig') })}
      onSubmit={() => void submit()}
    >
      <div className="form-grid two">
        <Field label={t('notify.name')} required error={form.errors.name}>
          <TextField.Root name="name" value={v.name} onChange={(e) => form.set('name', e.target.value)} />
        </Field>
        <Field label={t('notify.source')} required error={form.errors.source}>
          <SelectInput
            name="source"
            value={v.source}
            onChange={(x) => form.set('source', x)}
            options={options(t, 'notify.sources', notifySources)}
          />
        </Field>
        <Field label={t('notify.group')} required error={form.errors.groupId}>
          <SelectInput
            name="groupId"
            value={v.groupId || '*'}
            onChange={(x) => form.set('groupId', x === '*' ? '' : x)}
            options={[{ value: '*', label: t('notify.allGroups') }, ...(groups.data ?? [])]}
          />
        </Field>
        <Field label={t('notify.type')} required error={form.errors.type}>
          <SelectInput name="type" value={v.type} onChange={(x) => form.set('type', x)} options={options(t, 'notify.types', notifyTypes)} />
        </Field>
        <Field label={t('notify.template')} required error={form.errors.templateId}>
          <SelectInput
            name="templateId"
            value={v.templateId}
            onChange={(x) => form.set('templateId', x)}
            options={templates.data ?? []}
            placeholder={t('common.selectPlaceholder')}
          />
        </Field>
        <Field label={t('notify.minLevel')} error={form.errors.minLevel}>
          <SelectInput
            name="minLevel"
            value={v.minLevel}
            onChange={(x) => form.set('minLevel', x)}
            options={['1', '2', '3', '4', '5'].map((l) => ({ value: l, label: t(`alarm.levels.${l}`) }))}
          />
        </Field>
        <Field label={t('notify.status')}>
          <SelectInput
            name="status"
            value={v.status}
            onChange={(x) => form.set('status', x)}
            options={[
              { value: 'enabled', label: t('status.enabled') },
              { value: 'stopped', label: t('status.stopped') },
            ]}
          />
        </Field>
      </div>
      <Field label={t('notify.sendWays')} required error={form.errors.sendWays}>
        <Flex gap="4">
          {notifySendWays.map((w) => (
            <Flex key={w} gap="2" align="center" asChild>
              <label>
                <Checkbox
                  name={`sendWay-${w}`}
                  checked={v.sendWays.includes(w)}
                  onCheckedChange={(c) => toggle('sendWays', w, c === true)}
                />
                {t(`notify.ways.${w}`)}
              </label>
            </Flex>
          ))}
        </Flex>
      </Field>
      <Field label={t('notify.contact')} required error={form.errors.contactIds}>
        <Flex gap="4" wrap="wrap">
          {(contacts.data ?? []).map((c) => (
            <Flex key={c.id} gap="2" align="center" asChild>
              <label>
                <Checkbox
                  name={`contact-${c.name}`}
                  checked={v.contactIds.includes(c.id)}
                  onCheckedChange={(x) => toggle('contactIds', c.id, x === true)}
                />
                {c.name}
              </label>
            </Flex>
          ))}
        </Flex>
      </Field>
    </FormDialog>
  );
}

/** Notification configurations (spec §3): which alarms reach which contacts, through which template and ways. */
export function NotifyConfigsPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<ConfigRow | 'new' | null>(null);
  const deleteRows = useBulkDelete<ConfigRow>(CONFIGS, 'notifyConfig.delete', t('objects.notifyConfig'), (r) => r.name);
  const columns: ListColumn<ConfigRow>[] = [
    { id: 'name', header: t('notify.name'), value: (r) => r.name, sortable: true, width: 140 },
    { id: 'source', header: t('notify.source'), value: (r) => t(`notify.sources.${r.source}`), width: 90 },
    { id: 'group', header: t('notify.group'), value: (r) => r.groupName ?? t('notify.allGroups'), width: 110 },
    { id: 'type', header: t('notify.type'), value: (r) => t(`notify.types.${r.type}`), width: 70 },
    { id: 'template', header: t('notify.template'), value: (r) => r.templateName, width: 120 },
    { id: 'sendWays', header: t('notify.sendWays'), value: (r) => r.sendWays.map((w) => t(`notify.ways.${w}`)).join(', '), width: 140 },
    { id: 'contacts', header: t('notify.contact'), value: (r) => r.contactNames.join(', '), width: 160 },
    { id: 'minLevel', header: t('notify.minLevel'), value: (r) => t(`alarm.levels.${r.minLevel}`), width: 90 },
    {
      id: 'status',
      header: t('notify.status'),
      value: (r) => t(`status.${r.status}`),
      cell: (r) => <StatusBadge value={r.status} />,
      width: 90,
    },
    { id: 'createTime', header: t('notify.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  return (
    <>
      <ListPage<ConfigRow>
        queryKey={CONFIGS}
        route="notifyConfig.list"
        exportName={t('notify.template')}
        columns={columns}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[{ name: 'name', label: t('notify.name') }]}
        actions={crudActions<ConfigRow>(
          t,
          { add: alarmPerm.configAdd, edit: alarmPerm.configEdit, delete: alarmPerm.configDelete },
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

// ---------------------------------------------------------------- records
const RECORDS = 'notifyRecords';
const statusColour = { unsent: 'gray', sent: 'green', failed: 'red' } as const;

/** Notification records (spec §3): status with the failure reason, read flag, ticket ID, SN; failed ones sent again. */
export function NotifyRecordsPage() {
  const { t } = useTranslation();
  const change = useListChange(RECORDS);
  const columns: ListColumn<RecordRow>[] = [
    { id: 'createTime', header: t('notify.createTime'), value: (r) => formatDate(r.createTime, true), sortable: true, width: 150 },
    {
      id: 'sendWay',
      header: t('notify.sendWays'),
      value: (r) => `${t(`notify.ways.${r.sendWay}`)}${r.via === 'outbox' ? ` (${t('notify.localOutbox')})` : ''}`,
      width: 120,
    },
    {
      id: 'recipient',
      header: t('notify.recipient'),
      // In-app messages go to every user's inbox, not to an address.
      value: (r) =>
        r.sendWay === 'inApp' ? t('notify.inboxRecipient') : r.contactName ? `${r.contactName} <${r.recipient}>` : r.recipient,
      width: 200,
    },
    {
      id: 'subject',
      header: t('notify.subject'),
      value: (r) => r.subject,
      cell: (r) => (r.summary ? <Badge color="amber">{r.subject}</Badge> : <Ellipsis value={r.subject} />),
      width: 180,
    },
    { id: 'body', header: t('notify.content'), value: (r) => r.body, width: 240 },
    {
      id: 'status',
      header: t('notify.recordStatus'),
      value: (r) => t(`notify.statuses.${r.status}`),
      cell: (r) => <Badge color={statusColour[r.status]}>{t(`notify.statuses.${r.status}`)}</Badge>,
      sortable: true,
      width: 100,
    },
    { id: 'error', header: t('notify.error'), value: (r) => r.error, width: 180 },
    { id: 'attempts', header: t('notify.attempts'), value: (r) => r.attempts, width: 70 },
    {
      id: 'read',
      header: t('notify.readFlag'),
      value: (r) => (r.sendWay === 'inApp' ? t(r.read ? 'notify.read' : 'notify.unread') : null),
      width: 80,
    },
    { id: 'ticket', header: t('notify.ticketId'), value: (r) => r.ticketId, width: 150 },
    { id: 'sn', header: 'SN', value: (r) => r.sn, width: 110 },
  ];
  return (
    <ListPage<RecordRow>
      queryKey={RECORDS}
      route="notifyRecord.list"
      exportName={t('notify.recordsFile')}
      columns={columns}
      defaultSort={{ sort: 'createTime', order: 'desc' }}
      filters={[
        {
          name: 'status',
          label: t('notify.recordStatus'),
          type: 'select',
          options: options(t, 'notify.statuses', ['unsent', 'sent', 'failed']),
        },
        { name: 'sendWay', label: t('notify.sendWays'), type: 'select', options: options(t, 'notify.ways', [...notifySendWays, 'wechat']) },
        { name: 'sn', label: 'SN' },
      ]}
      actions={[
        {
          label: t('notify.markRead'),
          permission: alarmPerm.recordList,
          select: 'some',
          variant: 'soft',
          onClick: (rows) => change(() => callRoute('notifyRecord.read', { body: { ids: rows.map((r) => r.id) } }), t('alarm.done')),
        },
        {
          label: t('notify.retry'),
          permission: alarmPerm.recordRetry,
          select: 'some',
          variant: 'soft',
          onClick: (rows) => {
            // An unsent record is on its way already: only sent and failed ones go again.
            const ids = rows.filter((r) => r.status !== 'unsent').map((r) => r.id);
            if (ids.length === 0) return notice.warning(t('notify.nothingToSendAgain'));
            return change(() => callRoute('notifyRecord.retry', { body: { ids } }), t('alarm.done'));
          },
        },
      ]}
      rowActions={(row) =>
        row.status !== 'unsent' ? (
          <PermittedRowButton
            permission={alarmPerm.recordRetry}
            label={t('notify.retry')}
            onClick={() => void change(() => callRoute('notifyRecord.retry', { body: { ids: [row.id] } }), t('alarm.done'))}
          />
        ) : null
      }
    />
  );
}
