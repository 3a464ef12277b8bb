import './i18n.ts';
import './screen.css';
import '../alarm/i18n.ts';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import type { ScreenWidget } from '@iot/contracts/screen/model.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { formatDate } from '../ui/format.ts';
import { Stage, WidgetFrame, useHistory } from './Widgets.tsx';

const REFRESH_MS = 10_000;

/** The window's size, followed. */
function useWindowSize() {
  const [size, setSize] = useState({ width: window.innerWidth, height: window.innerHeight });
  useEffect(() => {
    const resize = () => setSize({ width: window.innerWidth, height: window.innerHeight });
    window.addEventListener('resize', resize);
    return () => window.removeEventListener('resize', resize);
  }, []);
  return size;
}

/**
 * A big screen shared by link (issue 20): no login, read-only, the 1920×1080 stage scaled to the window, its data
 * refreshed every 10 seconds. An expired, revoked or altered link shows why it does not open.
 */
export function SharedScreenPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const root = useRef<HTMLDivElement>(null);
  const size = useWindowSize();
  const shared = useQuery({
    queryKey: ['sharedScreen', token],
    enabled: token !== '',
    queryFn: () => callRoute('screen.shared', { query: { token } }, { noRedirect: true, noStation: true }),
    refetchInterval: (q) => (q.state.error ? false : REFRESH_MS),
    retry: false,
  });
  // The device charts' recent values, once when the page opens: a visitor cannot call the history route.
  const recent = useQuery({
    queryKey: ['sharedScreen', token, 'recent'],
    enabled: token !== '',
    staleTime: Infinity,
    queryFn: () => callRoute('screen.shared', { query: { token, recent: 'true' } }, { noRedirect: true, noStation: true }),
    retry: false,
  });
  const widgets = (shared.data?.screen.widgets ?? []) as ScreenWidget[];
  const history = useHistory(widgets, shared.data?.data.widgets, recent.data?.recent);
  useEffect(() => {
    if (shared.data) document.title = shared.data.screen.name;
  }, [shared.data]);
  if (!token || (shared.isError && !shared.data))
    return (
      <div className="sw-shared sw-shared-message" role="alert" data-testid="shared-invalid">
        <h1>{t('screen.shared.title')}</h1>
        <p>{shared.error ? messageOf(shared.error) : t('screen.shared.invalid')}</p>
      </div>
    );
  if (!shared.data) return <div className="sw-shared sw-shared-message">{t('common.loading')}</div>;
  return (
    <div
      ref={root}
      className="sw-shared"
      data-testid="shared-screen"
      onDoubleClick={() =>
        document.fullscreenElement ? void document.exitFullscreen() : void root.current?.requestFullscreen?.().catch(() => undefined)
      }
    >
      <Stage width={size.width} height={size.height}>
        <div className="sw-shared-head">
          <span>{shared.data.screen.name}</span>
          <small>
            {t('screen.updated')} {formatDate(shared.data.data.at, true)} · {t('screen.shared.until')}{' '}
            {formatDate(shared.data.expiresAt, true)}
          </small>
        </div>
        {widgets.map((w) => (
          <WidgetFrame key={w.id} widget={w} data={shared.data.data.widgets[w.id]} history={history[w.id] ?? []} />
        ))}
      </Stage>
    </div>
  );
}
