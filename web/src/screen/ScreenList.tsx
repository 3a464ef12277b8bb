import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Text } from '@radix-ui/themes';
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
import { NameDialog } from '../ui/NameDialog.tsx';
import { Designer } from './Designer.tsx';
import { ScreenView } from './ScreenView.tsx';
import { SharesDialog } from './SharesDialog.tsx';
import { SCREENS } from './useScreen.ts';

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
          label={t('screen.name')}
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
