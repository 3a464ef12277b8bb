import '../alarm/i18n.ts';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { Badge, Button, Flex, IconButton, Popover, Text } from '@radix-ui/themes';
import { BellIcon } from '@radix-ui/react-icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { alarmPerm } from '@iot/contracts';
import { callRoute, channelUrl, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { notice } from '../ui/feedback.tsx';
import { formatDate } from '../ui/format.ts';

const INBOX = 'inbox';

/**
 * The header's bell: the caller's own in-app inbox (each user has their own read marks), refreshed when `inbox.live`
 * says messages arrived, and its newest messages.
 */
export function Bell() {
  const { t } = useTranslation();
  const user = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const allowed = can(user, alarmPerm.recordList);
  const inbox = useQuery({
    queryKey: [INBOX],
    enabled: allowed,
    refetchInterval: 60_000,
    queryFn: () => callRoute('notifyRecord.unread', {}, { noRedirect: true }),
  });
  useEffect(() => {
    if (!allowed) return;
    const socket = new WebSocket(channelUrl('inbox.live'));
    socket.onmessage = () => void queryClient.invalidateQueries({ queryKey: [INBOX] });
    return () => socket.close();
  }, [allowed, queryClient]);
  if (!allowed) return null;
  const unread = inbox.data?.unread ?? 0;
  const markAll = async () => {
    try {
      await callRoute('notifyRecord.read', { body: {} });
    } catch (error) {
      notice.error(messageOf(error));
    }
    await queryClient.invalidateQueries({ queryKey: [INBOX] });
  };
  return (
    <Popover.Root>
      <Popover.Trigger>
        <IconButton variant="ghost" color="gray" aria-label={t('alarm.bell')} data-testid="bell" style={{ position: 'relative' }}>
          <BellIcon />
          {unread > 0 && (
            <Badge color="red" variant="solid" radius="full" size="1" className="bell-count" data-testid="bell-count">
              {unread > 99 ? '99+' : unread}
            </Badge>
          )}
        </IconButton>
      </Popover.Trigger>
      <Popover.Content width="360px" align="end">
        <Flex justify="between" align="center" mb="2">
          <Text weight="bold">{t('alarm.bell')}</Text>
          <Button size="1" variant="ghost" disabled={unread === 0} onClick={() => void markAll()}>
            {t('alarm.markAllRead')}
          </Button>
        </Flex>
        {(inbox.data?.latest ?? []).length === 0 ? (
          <Text size="2" color="gray">
            {t('alarm.inboxEmpty')}
          </Text>
        ) : (
          (inbox.data?.latest ?? []).map((m) => (
            <button
              type="button"
              key={m.id}
              className="inbox-item"
              data-unread={m.read ? undefined : 'true'}
              onClick={() => void navigate(m.alarmId ? `/alarm/monitor?alarm=${encodeURIComponent(m.alarmId)}` : '/alarm/monitor')}
            >
              <Text as="div" size="2" weight={m.read ? 'regular' : 'bold'}>
                {m.subject}
              </Text>
              <Text as="div" size="1" color="gray">
                {formatDate(m.createTime, true)} · {m.body.slice(0, 80)}
              </Text>
            </button>
          ))
        )}
      </Popover.Content>
    </Popover.Root>
  );
}
