import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Callout, Checkbox, Code, Dialog, Flex, Table, Text, TextArea, TextField } from '@radix-ui/themes';
import { downloadRoute } from '../fleet/download.ts';
import { CopyIcon, ExclamationTriangleIcon } from '@radix-ui/react-icons';
import { appSharings, appTypes, type AppRow } from '@iot/contracts/identity/app.ts';
import { enabledStatuses } from '@iot/contracts/identity/common.ts';
import { perm } from '@iot/contracts/identity/permissions.ts';
import { builtinMenus } from '@iot/contracts/menu/catalogue.ts';
import { useQuery } from '@tanstack/react-query';
import { messageOf, callRoute } from '../api/client.ts';
import { confirm, notice } from '../ui/feedback.tsx';
import { createdAtColumn, crudActions, labelled, PermittedRowButton, useListDelete, useRecordDialog, statusColumn } from '../ui/crud.tsx';
import { Field, FormDialog, checkBody } from '../ui/form.tsx';
import { ListPage, NEWEST_FIRST, type ListColumn } from '../ui/ListPage.tsx';
import { RowButton, SelectInput } from '../ui/widgets.tsx';
import { useSession } from '../auth/useSession.ts';

const KEY = 'apps';
/**
 * The scope an app may carry is picked from the permissions that exist and the creator holds (nobody grants
 * beyond their own), not typed: a typo would be a silently useless key.
 */
function ScopePicker({ value, onChange }: { value: string; onChange: (scope: string) => void }) {
  const me = useSession();
  const chosen = new Set(value.split(/[\s,]+/).filter(Boolean));
  const held = me?.permissions ?? [];
  // A tenant administrator holds everything of the tenant: then every permission of the catalogue is offered.
  const everything = builtinMenus
    .map((m) => m.permission)
    .filter((p): p is string => !!p && /:(list|add|edit|delete|export|view|[a-zA-Z]+)$/.test(p) && !p.endsWith(':view'));
  const mine = held.includes('*') ? everything : held;
  const offered = [...new Set([...mine.filter((p) => p !== '*' && !p.startsWith('platform:')), ...chosen])].sort();
  const toggle = (p: string) => {
    const next = new Set(chosen);
    if (next.has(p)) next.delete(p);
    else next.add(p);
    onChange([...next].join(', '));
  };
  return (
    <div
      className="scope-picker"
      role="group"
      aria-label="scope"
      style={{ maxHeight: 180, overflowY: 'auto', border: '1px solid var(--gray-6)', borderRadius: 6, padding: 6 }}
    >
      {offered.map((p) => (
        <div key={p} style={{ display: 'flex', gap: 6, alignItems: 'center', fontSize: 13 }}>
          <Checkbox checked={chosen.has(p)} onCheckedChange={() => toggle(p)} aria-label={p} />
          <code>{p}</code>
        </div>
      ))}
    </div>
  );
}

const empty = { id: '', type: 'web', name: '', scope: '', sharing: 'organisation', status: 'enabled', remark: '' };
type Credentials = { id: string; appKey: string; appSecret: string };

export const appPayload = (v: typeof empty, creating: boolean) => {
  const body = { type: v.type, name: v.name, scope: v.scope.split(/[\s,]+/).filter(Boolean), sharing: v.sharing, remark: v.remark || null };
  return creating ? body : { id: v.id, ...body, status: v.status };
};

async function copy(text: string, t: (k: string) => string) {
  try {
    await navigator.clipboard.writeText(text);
    notice.success(t('app.copied'));
  } catch {
    notice.error(t('app.copyFailed'));
  }
}

/** The secret, shown once: it is stored only as a hash. */
/** The API an app's key may call (spec §7 appApi), with its OpenAPI document to hand to the app's developers. */
function ApiDialog({ app, onClose }: { app: AppRow | null; onClose: () => void }) {
  const { t } = useTranslation();
  const api = useQuery({
    queryKey: ['app', 'api', app?.id],
    enabled: app !== null,
    queryFn: () => callRoute('app.api', { query: { id: app!.id } }),
  });
  const download = () =>
    downloadRoute('app.openApi', { id: app!.id }, `openapi-${app!.name}.json`).catch((error: unknown) => notice.error(messageOf(error)));
  return (
    <Dialog.Root open={app !== null} onOpenChange={(o) => !o && onClose()}>
      <Dialog.Content maxWidth="720px" aria-describedby={undefined}>
        <Dialog.Title>
          {t('app.api')}: {app?.name}
        </Dialog.Title>
        <Table.Root size="1" data-testid="app-api">
          <Table.Body>
            {(api.data ?? []).map((r) => (
              <Table.Row key={`${r.method} ${r.path}`}>
                <Table.Cell>
                  <Code>{r.method}</Code>
                </Table.Cell>
                <Table.Cell>{r.path}</Table.Cell>
                <Table.Cell>{r.summary}</Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
        {api.data?.length === 0 && <Text color="gray">{t('common.noData')}</Text>}
        <Flex gap="3" mt="4" justify="end">
          <Button variant="soft" onClick={() => void download()}>
            {t('app.openApi')}
          </Button>
          <Dialog.Close>
            <Button>{t('common.close')}</Button>
          </Dialog.Close>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}

function SecretDialog({ credentials, onClose }: { credentials: Credentials | null; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Dialog.Root open={credentials !== null} onOpenChange={(o) => !o && onClose()}>
      <Dialog.Content maxWidth="560px">
        <Dialog.Title>{t('app.keyCreated')}</Dialog.Title>
        <Callout.Root color="amber" mb="3">
          <Callout.Icon>
            <ExclamationTriangleIcon />
          </Callout.Icon>
          <Callout.Text>{t('app.secretOnce')}</Callout.Text>
        </Callout.Root>
        {credentials &&
          (['appKey', 'appSecret'] as const).map((k) => (
            <Flex key={k} direction="column" gap="1" mb="3">
              <Text size="2" weight="medium">
                {t(`app.${k}`)}
              </Text>
              <Flex gap="2" align="center">
                <Code size="3" className="secret" data-testid={k}>
                  {credentials[k]}
                </Code>
                <Button size="1" variant="soft" onClick={() => void copy(credentials[k], t)}>
                  <CopyIcon />
                  {t('app.copy')}
                </Button>
              </Flex>
            </Flex>
          ))}
        <Flex justify="end">
          <Dialog.Close>
            <Button>{t('app.secretSaved')}</Button>
          </Dialog.Close>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}

function AppDialog({
  editing,
  onClose,
  onCreated,
}: {
  editing: AppRow | 'new' | null;
  onClose: () => void;
  onCreated: (c: Credentials) => void;
}) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const { form, run, done, dialog } = useRecordDialog({
    editing,
    empty,
    queryKey: KEY,
    onClose,
    valuesOf: (e) =>
      e && e !== 'new'
        ? {
            id: e.id,
            type: e.type,
            name: e.name,
            scope: e.scope.join(', '),
            sharing: e.sharing,
            status: e.status,
            remark: e.remark ?? '',
          }
        : empty,
  });
  const submit = async () => {
    const checked = checkBody(creating ? 'app.create' : 'app.update', appPayload(form.values, creating), t, {
      name: t('validation.maxLength', { field: t('app.name'), max: 64 }),
      scope: t('validation.permission'),
    });
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      if (checked.route === 'app.create') onCreated(await callRoute(checked.route, { body: checked.data }));
      else await callRoute(checked.route, { body: checked.data });
      await done(t(creating ? 'app.created' : 'app.edited'));
    });
  };
  const v = form.values;
  return (
    <FormDialog {...dialog} title={t(creating ? 'app.add' : 'app.edit')} onSubmit={() => void submit()} width="600px">
      <div className="form-grid two">
        <Field label={t('app.name')} required error={form.errors.name}>
          <TextField.Root {...form.input('name')} placeholder={t('common.inputPlaceholder', { field: t('app.name') })} />
        </Field>
        <Field label={t('app.type')} required>
          <SelectInput {...form.select('type')} options={labelled(t, 'appType', appTypes)} />
        </Field>
        <Field label={t('app.sharing')} required hint={t(`appSharingHint.${v.sharing}`)}>
          <SelectInput {...form.select('sharing')} options={labelled(t, 'appSharing', appSharings)} />
        </Field>
        {!creating ? (
          <Field label={t('app.status')} required>
            <SelectInput {...form.select('status')} options={labelled(t, 'status', enabledStatuses)} />
          </Field>
        ) : (
          <div />
        )}
      </div>
      <Field label={t('app.scope')} error={form.errors.scope} hint={t('app.scopeHint')}>
        <ScopePicker value={v.scope} onChange={(scope) => form.set('scope', scope)} />
      </Field>
      <Field label={t('app.remark')} error={form.errors.remark}>
        <TextArea {...form.input('remark')} />
      </Field>
    </FormDialog>
  );
}

export function AppsPage() {
  const { t } = useTranslation();
  const deleteRows = useListDelete(KEY);
  const [editing, setEditing] = useState<AppRow | 'new' | null>(null);
  const [credentials, setCredentials] = useState<Credentials | null>(null);
  const [showingApi, setShowingApi] = useState<AppRow | null>(null);
  const remove = (rows: AppRow[]) =>
    deleteRows(
      t('app.deleteConfirm', { names: rows.map((r) => r.name).join(', ') }),
      async () => {
        for (const row of rows) await callRoute('app.delete', { query: { id: row.id } });
      },
      t('app.deleted'),
    );
  const newSecret = async (row: AppRow) => {
    if (!(await confirm({ message: t('app.newSecretConfirm', { name: row.name }), danger: true }))) return;
    try {
      setCredentials(await callRoute('app.rotateSecret', { body: { id: row.id } }));
    } catch (error) {
      notice.error(messageOf(error));
    }
  };
  const columns: ListColumn<AppRow>[] = [
    { id: 'name', header: t('app.name'), value: (r) => r.name, sortable: true, width: 150 },
    { id: 'type', header: t('app.type'), value: (r) => t(`appType.${r.type}`), width: 80 },
    { id: 'appKey', header: t('app.appKey'), value: (r) => r.appKey, width: 200 },
    { id: 'owner', header: t('app.owner'), value: (r) => r.ownerName, width: 110 },
    { id: 'scope', header: t('app.scope'), value: (r) => r.scope.join(', '), width: 180 },
    { id: 'sharing', header: t('app.sharing'), value: (r) => t(`appSharing.${r.sharing}`), width: 100 },
    statusColumn(t, t('app.status'), 80),
    createdAtColumn(t('common.createdAt')),
  ];
  return (
    <>
      <ListPage<AppRow>
        queryKey={KEY}
        route="app.list"
        exportName={t('menu.app')}
        columns={columns}
        defaultSort={NEWEST_FIRST}
        filters={[
          { name: 'name', label: t('app.name') },
          { name: 'type', label: t('app.type'), type: 'select', options: labelled(t, 'appType', appTypes) },
        ]}
        actions={crudActions<AppRow>(
          t,
          { add: perm.appAdd, edit: perm.appEdit, delete: perm.appDelete },
          { add: () => setEditing('new'), edit: setEditing, remove },
        )}
        rowActions={(row) => (
          <>
            <RowButton label={t('app.copyKey')} onClick={() => void copy(row.appKey, t)} />
            <RowButton label={t('app.api')} onClick={() => setShowingApi(row)} />
            <PermittedRowButton permission={perm.appSecret} label={t('app.newSecret')} onClick={() => void newSecret(row)} />
            <PermittedRowButton permission={perm.appEdit} label={t('common.edit')} onClick={() => setEditing(row)} />
            <PermittedRowButton permission={perm.appDelete} label={t('common.delete')} danger onClick={() => void remove([row])} />
          </>
        )}
      />
      <AppDialog editing={editing} onClose={() => setEditing(null)} onCreated={setCredentials} />
      <SecretDialog credentials={credentials} onClose={() => setCredentials(null)} />
      <ApiDialog app={showingApi} onClose={() => setShowingApi(null)} />
    </>
  );
}
