import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Dialog, Flex, Text, TextField } from '@radix-ui/themes';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ScreenRow } from '@iot/contracts/screen/model.ts';
import { screenPerm } from '@iot/contracts/screen/permissions.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { deleteQuestion } from '../ui/crud.tsx';
import { confirm, notice } from '../ui/feedback.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { Designer } from './Designer.tsx';
import { ScreenView } from './ScreenView.tsx';
import { SharesDialog } from './SharesDialog.tsx';
import { SCREENS } from './useScreen.ts';

/** A name asked in a dialog: for a new screen or a renamed one. */
function NameDialog({
  title,
  initial,
  onDone,
  onClose,
}: {
  title: string;
  initial: string;
  onDone: (name: string) => Promise<void>;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [name, setName] = useState(initial);
  const [busy, setBusy] = useState(false);
  return (
    <Dialog.Root open onOpenChange={(open) => !open && onClose()}>
      <Dialog.Content maxWidth="420px">
        <Dialog.Title>{title}</Dialog.Title>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setBusy(true);
            onDone(name.trim())
              .catch((error: unknown) => notice.error(messageOf(error)))
              .finally(() => setBusy(false));
          }}
        >
          <label>
            <Text size="2">{t('screen.name')}</Text>
            <TextField.Root aria-label={t('screen.name')} value={name} maxLength={64} required onChange={(e) => setName(e.target.value)} />
          </label>
          <Flex justify="end" gap="2" mt="3">
            <Dialog.Close>
              <Button type="button" variant="soft" color="gray">
                {t('common.cancel')}
              </Button>
            </Dialog.Close>
            <Button type="submit" disabled={busy || !name.trim()}>
              {t('common.confirm')}
            </Button>
          </Flex>
        </form>
      </Dialog.Content>
    </Dialog.Root>
  );
}

/** The tenant's designed screens: a list (paged, sorted, filtered by name, exported), each viewed, designed, renamed, shared or deleted. */
export function ScreenList() {
  const { t } = useTranslation();
  const user = useSession();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState<{ id: string; mode: 'view' | 'design' } | null>(null);
  const [naming, setNaming] = useState<ScreenRow | 'new' | null>(null);
  const [sharing, setSharing] = useState<ScreenRow | null>(null);
  const detail = useQuery({
    queryKey: [SCREENS, 'detail', open?.id],
    enabled: !!open,
    queryFn: () => callRoute('screen.detail', { query: { id: open!.id } }),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: [SCREENS] });
  if (open) {
    if (detail.isError)
      return (
        <Text color="red" role="alert">
          {messageOf(detail.error)}
        </Text>
      );
    if (!detail.data) return <Text color="gray">{t('common.loading')}</Text>;
    return open.mode === 'view' ? (
      <ScreenView screen={detail.data} onClose={() => setOpen(null)} />
    ) : (
      <Designer key={detail.data.updateTime} screen={detail.data} onBack={() => setOpen(null)} />
    );
  }
  const remove = async (s: ScreenRow) => {
    if (!(await confirm({ title: t('screen.delete'), message: deleteQuestion(t, t('objects.screen'), [s.name]), danger: true }))) return;
    try {
      await callRoute('screen.delete', { query: { id: s.id } });
      await refresh();
    } catch (e) {
      notice.error(messageOf(e));
    }
  };
  const columns: ListColumn<ScreenRow>[] = [
    { id: 'name', header: t('screen.name'), value: (s) => s.name, sortable: true },
    { id: 'widgets', header: t('screen.widgetsCount'), value: (s) => s.widgets.length, width: 120 },
    { id: 'updateTime', header: t('screen.updateTime'), value: (s) => formatDate(s.updateTime, true), sortable: true, width: 180 },
  ];
  return (
    <div data-testid="screen-list">
      <ListPage<ScreenRow>
        queryKey={SCREENS}
        route="screen.list"
        exportName={t('screen.title')}
        columns={columns}
        selectable={false}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[{ name: 'name', label: t('screen.name') }]}
        empty={
          <div data-testid="screen-empty">
            <Text as="div" weight="bold">
              {t('screen.empty')}
            </Text>
            <Text as="div" size="2" color="gray">
              {t('screen.emptyHint')}
            </Text>
          </div>
        }
        actions={[
          {
            label: t('screen.create'),
            permission: screenPerm.add,
            select: 'none',
            onClick: () => setNaming('new'),
          },
        ]}
        rowActions={(s) => (
          <>
            <Button size="1" variant="soft" onClick={() => setOpen({ id: s.id, mode: 'view' })}>
              {t('screen.view')}
            </Button>
            {can(user, screenPerm.edit) && (
              <>
                <Button size="1" variant="soft" onClick={() => setOpen({ id: s.id, mode: 'design' })}>
                  {t('screen.edit')}
                </Button>
                <Button size="1" variant="soft" onClick={() => setNaming(s)}>
                  {t('screen.rename')}
                </Button>
              </>
            )}
            {can(user, screenPerm.share) && (
              <Button size="1" variant="soft" onClick={() => setSharing(s)}>
                {t('screen.share')}
              </Button>
            )}
            {can(user, screenPerm.delete) && (
              <Button size="1" variant="soft" color="red" onClick={() => void remove(s)}>
                {t('screen.delete')}
              </Button>
            )}
          </>
        )}
      />
      {naming && (
        <NameDialog
          title={naming === 'new' ? t('screen.create') : t('screen.rename')}
          initial={naming === 'new' ? '' : naming.name}
          onClose={() => setNaming(null)}
          onDone={async (name) => {
            if (naming === 'new') {
              const { id } = await callRoute('screen.create', { body: { name } });
              setOpen({ id, mode: 'design' });
            } else await callRoute('screen.rename', { body: { id: naming.id, name } });
            setNaming(null);
            await refresh();
          }}
        />
      )}
      {sharing && <SharesDialog screen={sharing} onClose={() => setSharing(null)} />}
    </div>
  );
}
