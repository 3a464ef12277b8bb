import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Badge, Button, Callout, Dialog, Flex, Table, Text, TextField } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { SCREEN_SHARE_MAX_HOURS, type ScreenRow } from '@iot/contracts/screen/model.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { notice } from '../ui/feedback.tsx';
import { formatDate } from '../ui/format.ts';
import { SCREENS } from './useScreen.ts';

/** A screen's share links: create one with an expiry (its link is shown once, to copy or open), revoke. */
export function SharesDialog({ screen, onClose }: { screen: ScreenRow; onClose: () => void }) {
  const { t } = useTranslation();
  const [hours, setHours] = useState('24');
  const [busy, setBusy] = useState(false);
  const [made, setMade] = useState<string | null>(null);
  const shares = useQuery({
    queryKey: [SCREENS, 'shares', screen.id],
    queryFn: () => callRoute('screen.shares', { query: { id: screen.id } }),
  });
  const linkOf = (token: string) => `${window.location.origin}/share/screen?token=${encodeURIComponent(token)}`;
  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await action();
      await shares.refetch();
    } catch (e) {
      notice.error(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog.Root open onOpenChange={(open) => !open && onClose()}>
      <Dialog.Content maxWidth="760px" data-testid="screen-shares">
        <Dialog.Title>
          {t('screen.shares.title')} · {screen.name}
        </Dialog.Title>
        <Flex gap="2" align="end" mb="3">
          <label>
            <Text size="1" color="gray">
              {t('screen.shares.hours')}
            </Text>
            <TextField.Root
              type="number"
              min={1}
              max={SCREEN_SHARE_MAX_HOURS}
              aria-label={t('screen.shares.hours')}
              value={hours}
              onChange={(e) => setHours(e.target.value)}
            />
          </label>
          <Button
            disabled={busy || !(Number(hours) >= 1)}
            onClick={() =>
              void run(async () =>
                setMade((await callRoute('screen.share', { body: { id: screen.id, hours: Math.round(Number(hours)) } })).token),
              )
            }
            data-testid="share-create"
          >
            {t('screen.shares.create')}
          </Button>
        </Flex>
        {made && (
          <Callout.Root color="green" mb="3" data-testid="share-new">
            <Callout.Text>{t('screen.shares.shownOnce')}</Callout.Text>
            <code className="sw-link" data-testid="share-link">
              {linkOf(made)}
            </code>
            <Flex gap="1">
              <Button
                size="1"
                variant="soft"
                onClick={() => void navigator.clipboard?.writeText(linkOf(made)).then(() => notice.success(t('screen.shares.copied')))}
              >
                {t('screen.shares.copy')}
              </Button>
              <Button size="1" variant="soft" asChild>
                <a href={linkOf(made)} target="_blank" rel="noreferrer">
                  {t('screen.shares.open')}
                </a>
              </Button>
            </Flex>
          </Callout.Root>
        )}
        {shares.data?.length === 0 && <Text color="gray">{t('screen.shares.none')}</Text>}
        {!!shares.data?.length && (
          <Table.Root size="1">
            <Table.Body>
              {shares.data.map((s) => (
                <Table.Row key={s.id} data-testid="share-row">
                  <Table.Cell>
                    <Badge color={s.revoked ? 'gray' : s.expired ? 'amber' : 'green'}>
                      {t(s.revoked ? 'screen.shares.revoked' : s.expired ? 'screen.shares.expired' : 'screen.shares.live')}
                    </Badge>
                  </Table.Cell>
                  <Table.Cell>
                    {t('screen.shares.expiresAt')} {formatDate(s.expiresAt, true)}
                  </Table.Cell>
                  <Table.Cell data-testid="share-station">
                    {s.stationId === null
                      ? t('screen.shares.wholeTenant')
                      : t('screen.shares.station', { name: s.stationName ?? t('screen.shares.stationGone') })}
                  </Table.Cell>
                  <Table.Cell>
                    <Flex gap="1">
                      {!s.revoked && (
                        <Button
                          size="1"
                          variant="soft"
                          color="red"
                          disabled={busy}
                          onClick={() => void run(() => callRoute('screen.unshare', { query: { id: screen.id, shareId: s.id } }))}
                        >
                          {t('screen.shares.revoke')}
                        </Button>
                      )}
                    </Flex>
                  </Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </Table.Root>
        )}
      </Dialog.Content>
    </Dialog.Root>
  );
}
