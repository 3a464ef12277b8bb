import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Badge, Button, Dialog, Flex, Table, Text, TextArea, TextField } from '@radix-ui/themes';
import { DownloadIcon, UploadIcon } from '@radix-ui/react-icons';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { ruleChainDefinition, ruleChainFile, rulePerm } from '@iot/contracts';
import { callRoute, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { downloadRoute } from '../fleet/download.ts';
import { crudActions, useBulkDelete, useRecordDialog } from '../ui/crud.tsx';
import { confirm, notice } from '../ui/feedback.tsx';
import { Field, FormDialog } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, useRefresh, type ListAction, type ListColumn } from '../ui/ListPage.tsx';
import { Loading } from '../ui/Loading.tsx';
import { chainName } from './chain-name.ts';

type ChainRow = Awaited<ReturnType<typeof callRoute<'ruleChain.list'>>>['rows'][number];
const CHAINS = 'ruleChains';
const empty = { name: '', description: '' };

/** Name and description: a new chain (one Warehousing node, built on in the editor), or a new version of one. */
function ChainDialog({ editing, onClose }: { editing: ChainRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const { form, run, done, dialog } = useRecordDialog({
    editing,
    empty,
    queryKey: CHAINS,
    onClose,
    // The root chain's built-in name is shown in the user's language, as everywhere else.
    valuesOf: (e) => (e && e !== 'new' ? { name: chainName(t, e), description: e.description ?? '' } : empty),
  });
  const v = form.values;
  const submit = () => {
    if (!v.name.trim()) return form.setErrors({ name: t('validation.required') });
    return run(async () => {
      const description = v.description.trim() || null;
      if (editing === 'new') {
        const chain = {
          name: v.name,
          description,
          firstNodeId: 'input',
          nodes: [
            {
              id: 'input',
              name: t('rule.kinds.warehousing'),
              kind: 'warehousing' as const,
              config: {},
              position: { x: 240, y: 120 },
            },
          ],
          links: [],
        };
        await callRoute('ruleChain.create', { body: { chain } });
        return done(t('rule.created'));
      }
      if (!editing) return;
      // The name as shown, left as it was: the chain keeps its own (the built-in one stays built-in, in every language).
      const name = v.name.trim() === chainName(t, editing) ? editing.name : v.name;
      if (name === editing.name && description === (editing.description ?? null)) return done(t('rule.unchanged'));
      // A new version on top of the latest one, refused if someone saved a later one meanwhile.
      const latest = await callRoute('ruleChain.detail', { query: { id: editing.id, version: editing.latestVersion } });
      const saved = await callRoute('ruleChain.update', {
        body: {
          id: editing.id,
          baseVersion: editing.latestVersion,
          chain: ruleChainDefinition.parse({ ...latest.chain, name, description }),
        },
      });
      return done(t('rule.saved', { version: saved.version }));
    });
  };
  return (
    <FormDialog {...dialog} title={t(creating ? 'rule.add' : 'rule.edit')} onSubmit={() => void submit()}>
      <Field label={t('rule.name')} required error={form.errors.name}>
        <TextField.Root {...form.input('name')} maxLength={64} />
      </Field>
      <Field label={t('rule.description')}>
        <TextArea {...form.input('description')} maxLength={500} />
      </Field>
    </FormDialog>
  );
}

/** A chain's versions: which runs, which restored which; run or restore any of them. */
function VersionsDialog({ chain, onClose }: { chain: ChainRow | null; onClose: () => void }) {
  const { t } = useTranslation();
  const me = useSession();
  const refresh = useRefresh(CHAINS);
  const versions = useQuery({
    queryKey: [CHAINS, 'versions', chain?.id],
    enabled: !!chain,
    queryFn: () => callRoute('ruleChain.versions', { query: { id: chain!.id, pageSize: 100 } }),
  });
  if (!chain) return null;
  const act = async (work: () => Promise<{ version: number }>, success: (version: number) => string, question: string) => {
    if (!(await confirm({ message: question }))) return;
    try {
      notice.success(success((await work()).version));
      await Promise.all([versions.refetch(), refresh()]);
    } catch (error) {
      notice.error(messageOf(error));
    }
  };
  return (
    <Dialog.Root open onOpenChange={(open) => !open && onClose()}>
      <Dialog.Content maxWidth="760px" aria-describedby={undefined}>
        <Dialog.Title>
          {t('rule.versions')}: {chainName(t, chain)}
        </Dialog.Title>
        {!versions.data ? (
          <Loading />
        ) : (
          <Table.Root size="1" variant="surface" aria-label={t('rule.versions')} data-testid="chain-versions">
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeaderCell>{t('rule.version')}</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>{t('rule.name')}</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>{t('rule.nodeCount')}</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>{t('rule.restoredFrom')}</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>{t('rule.savedBy')}</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>{t('rule.savedAt')}</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell />
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {versions.data.rows.map((v) => (
                <Table.Row key={v.version}>
                  <Table.Cell>
                    {v.version} {v.running && <Badge color="green">{t('rule.running')}</Badge>}
                  </Table.Cell>
                  <Table.Cell>{chainName(t, { id: chain.id, name: v.name })}</Table.Cell>
                  <Table.Cell>{v.nodeCount}</Table.Cell>
                  <Table.Cell>{v.restoredFrom ?? '--'}</Table.Cell>
                  <Table.Cell>{v.createdBy ?? '--'}</Table.Cell>
                  <Table.Cell>{formatDate(v.createdAt)}</Table.Cell>
                  <Table.Cell>
                    <Flex gap="2">
                      {!v.running && can(me, rulePerm.chainRun) && (
                        <Button
                          size="1"
                          variant="soft"
                          onClick={() =>
                            void act(
                              () => callRoute('ruleChain.run', { body: { id: chain.id, version: v.version } }),
                              (version) => t('rule.switched', { version }),
                              t('rule.runQuestion', { name: chainName(t, chain), version: v.version }),
                            )
                          }
                        >
                          {t('rule.run')}
                        </Button>
                      )}
                      {v.version !== chain.latestVersion && can(me, rulePerm.chainEdit) && (
                        <Button
                          size="1"
                          variant="soft"
                          color="gray"
                          onClick={() =>
                            void act(
                              () => callRoute('ruleChain.restore', { body: { id: chain.id, version: v.version } }),
                              (version) => t('rule.restored', { version }),
                              t('rule.restoreQuestion', { version: v.version }),
                            )
                          }
                        >
                          {t('rule.restore')}
                        </Button>
                      )}
                    </Flex>
                  </Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </Table.Root>
        )}
        <Flex mt="4" justify="end">
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

/** The rule chain library (spec §2): create, edit, delete with a confirm, export, JSON upload, versions, the root chain. */
export function ChainLibraryPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<ChainRow | 'new' | null>(null);
  const [versionsOf, setVersionsOf] = useState<ChainRow | null>(null);
  const deleteRows = useBulkDelete<ChainRow>(CHAINS, 'ruleChain.delete', t('rule.chain'), (r) => chainName(t, r));
  const refresh = useRefresh(CHAINS);
  const file = useRef<HTMLInputElement>(null);
  const navigate = useNavigate();

  const upload = async (f: File) => {
    // Spec §5: rule chain upload takes JSON files only.
    if (!/\.json$/i.test(f.name)) return notice.error(t('rule.jsonOnly'));
    let body: unknown;
    try {
      body = JSON.parse(await f.text());
    } catch {
      return notice.error(t('rule.notJson'));
    }
    // Checked whole before it is sent, each fault named by its path (the server checks it again).
    const parsed = ruleChainFile.safeParse(body);
    if (!parsed.success)
      return notice.error(
        parsed.error.issues
          .slice(0, 5)
          .map((i) => `${i.path.join('.')}: ${i.message}`)
          .join('; '),
      );
    try {
      await callRoute('ruleChain.import', { body: parsed.data });
      notice.success(t('rule.uploaded'));
      await refresh();
    } catch (error) {
      notice.error(messageOf(error));
    }
  };

  const columns: ListColumn<ChainRow>[] = [
    {
      id: 'name',
      header: t('rule.name'),
      value: (r) => chainName(t, r),
      cell: (r) => (
        <Flex gap="2" align="center">
          <Text>{chainName(t, r)}</Text>
          {r.root && <Badge color="blue">{t('rule.root')}</Badge>}
        </Flex>
      ),
      sortable: true,
      width: 200,
    },
    { id: 'description', header: t('rule.description'), value: (r) => r.description, width: 220 },
    { id: 'runningVersion', header: t('rule.runningVersion'), value: (r) => r.runningVersion, width: 90 },
    { id: 'latestVersion', header: t('rule.latestVersion'), value: (r) => r.latestVersion, width: 90 },
    { id: 'nodeCount', header: t('rule.nodeCount'), value: (r) => r.nodeCount, width: 80 },
    { id: 'updateTime', header: t('rule.updatedAt'), value: (r) => formatDate(r.updatedAt), sortable: true, width: 140 },
    { id: 'createTime', header: t('common.createdAt'), value: (r) => formatDate(r.createdAt), sortable: true, width: 140 },
  ];
  const actions: ListAction<ChainRow>[] = [
    ...crudActions<ChainRow>(
      t,
      { add: rulePerm.chainAdd, edit: rulePerm.chainEdit, delete: rulePerm.chainDelete },
      {
        add: () => setEditing('new'),
        edit: setEditing,
        remove: deleteRows,
      },
    ),
    {
      label: t('rule.openEditor'),
      permission: rulePerm.chainEdit,
      select: 'one',
      variant: 'soft',
      onClick: (rows) => void navigate(`/rule/chainEditor?id=${encodeURIComponent(rows[0]!.id)}`),
    },
    {
      label: t('rule.versions'),
      permission: rulePerm.chainList,
      select: 'one',
      variant: 'soft',
      onClick: (rows) => setVersionsOf(rows[0]!),
    },
    {
      label: t('rule.export'),
      icon: <DownloadIcon />,
      permission: rulePerm.chainExport,
      select: 'one',
      variant: 'soft',
      onClick: (rows) =>
        downloadRoute('ruleChain.export', { id: rows[0]!.id }, `${rows[0]!.name}.json`).catch((error: unknown) =>
          notice.error(messageOf(error)),
        ),
    },
    {
      label: t('rule.upload'),
      icon: <UploadIcon />,
      permission: rulePerm.chainImport,
      select: 'none',
      variant: 'soft',
      onClick: () => file.current?.click(),
    },
  ];
  return (
    <>
      <ListPage<ChainRow>
        queryKey={CHAINS}
        route="ruleChain.list"
        exportName={t('rule.chain')}
        columns={columns}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[{ name: 'name', label: t('rule.name') }]}
        actions={actions}
      />
      <input
        ref={file}
        type="file"
        accept="application/json,.json"
        hidden
        aria-label={t('rule.upload')}
        onChange={(e) => {
          const f = e.target.files?.[0];
          e.target.value = '';
          if (f) void upload(f);
        }}
      />
      <ChainDialog editing={editing} onClose={() => setEditing(null)} />
      <VersionsDialog chain={versionsOf} onClose={() => setVersionsOf(null)} />
    </>
  );
}
