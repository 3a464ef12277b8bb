import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Badge, Button, Text } from '@radix-ui/themes';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ScreenRow, ScreenWidget } from '@iot/contracts/screen/model.ts';
import { devicePerm } from '@iot/contracts/device/permissions.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { confirm, notice } from '../ui/feedback.tsx';
import { formatDate } from '../ui/format.ts';
import { DATA_REFRESH_MS, SCREENS, useRecentHistory, useSize } from './useScreen.ts';
import { Stage, WidgetFrame, useHistory } from './Widgets.tsx';

/** The view of a screen: live values every 5 seconds, the 1920×1080 stage scaled to the window, full screen on demand. */
export function ScreenView({ screen, onClose }: { screen: ScreenRow; onClose: () => void }) {
  const { t } = useTranslation();
  const root = useRef<HTMLDivElement>(null);
  const [box, size] = useSize<HTMLDivElement>();
  const widgets = screen.widgets as ScreenWidget[];
  const data = useQuery({
    queryKey: [SCREENS, 'data', screen.id],
    queryFn: () => callRoute('screen.data', { query: { id: screen.id } }),
    refetchInterval: DATA_REFRESH_MS,
  });
  const recent = useRecentHistory(widgets);
  const history = useHistory(widgets, data.data?.widgets, recent);
  const user = useSession();
  const queryClient = useQueryClient();
  // A switch sets its device variable, after a confirm: for whom may command devices.
  const onSwitch = can(user, devicePerm.deviceCommand)
    ? async (w: ScreenWidget, value: 0 | 1) => {
        if (w.binding.source !== 'device') return;
        const name = w.title || t(`screen.kinds.${w.kind}`);
        if (!(await confirm({ title: name, message: t('screen.switchQuestion', { name, state: t(value ? 'screen.on' : 'screen.off') }) })))
          return;
        try {
          await callRoute('device.command', {
            body: { id: w.binding.deviceId, kind: 'property', identifier: w.binding.variable, params: { value } },
          });
          notice.success(t('screen.switchSent'));
          await queryClient.invalidateQueries({ queryKey: [SCREENS, 'data', screen.id] });
        } catch (e) {
          notice.error(messageOf(e));
        }
      }
    : undefined;
  const toggle = () => {
    if (document.fullscreenElement) void document.exitFullscreen();
    else void root.current?.requestFullscreen?.().catch(() => undefined);
  };
  return (
    <div ref={root} className="sw-view" data-testid="screen-view">
      <div className="sw-view-bar">
        <Button size="1" variant="solid" onClick={onClose}>
          {t('screen.back')}
        </Button>
        <strong>{screen.name}</strong>
        <Badge color="green">{t('screen.live')}</Badge>
        {data.data && (
          <span className="sw-muted">
            {t('screen.updated')} {formatDate(data.data.at, true)}
          </span>
        )}
        {data.isError && (
          <Text size="1" color="red" role="alert">
            {messageOf(data.error)}
          </Text>
        )}
        <span style={{ flex: 1 }} />
        <Button size="1" variant="outline" onClick={toggle}>
          {t('screen.fullScreen')}
        </Button>
      </div>
      <div ref={box} className="sw-view-box">
        <Stage width={size.width} height={size.height}>
          {widgets.map((w) => (
            <WidgetFrame
              key={w.id}
              widget={w}
              data={data.data?.widgets[w.id]}
              history={history[w.id] ?? []}
              onSwitch={onSwitch && ((sw, value) => void onSwitch(sw, value))}
            />
          ))}
        </Stage>
      </div>
    </div>
  );
}
