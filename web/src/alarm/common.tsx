import { useEffect } from 'react';
import { Badge } from '@radix-ui/themes';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { channelUrl } from '../api/client.ts';

const levelColours = ['gray', 'gray', 'blue', 'amber', 'orange', 'red'] as const;

/** An alarm level 1-5 as a badge coloured by severity, named in the language. */
export function LevelBadge({ level }: { level: number }) {
  const { t } = useTranslation();
  return (
    <Badge color={levelColours[level] ?? 'gray'} variant={level >= 4 ? 'solid' : 'soft'}>
      {t(`alarm.levels.${level}`)}
    </Badge>
  );
}

/** Refreshes the lists named when an alarm changes anywhere in the tenant (the `alarm.live` feed). */
export function useAlarmFeed(queryKeys: string[]) {
  const queryClient = useQueryClient();
  useEffect(() => {
    const socket = new WebSocket(channelUrl('alarm.live'));
    let timer: ReturnType<typeof setTimeout> | null = null;
    socket.onmessage = () => {
      // A burst of alarms refreshes once.
      timer ??= setTimeout(() => {
        timer = null;
        for (const key of queryKeys) void queryClient.invalidateQueries({ queryKey: [key] });
      }, 500);
    };
    return () => {
      if (timer) clearTimeout(timer);
      socket.close();
    };
  }, [queryClient, queryKeys.join(',')]); // eslint-disable-line react-hooks/exhaustive-deps
}
