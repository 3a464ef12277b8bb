import { useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { SCREEN_RECENT_MS, historyWidgetKinds, type ScreenWidget } from '@iot/contracts/screen/model.ts';
import { devicePerm } from '@iot/contracts/device/permissions.ts';
import { callRoute } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { HISTORY_KEPT, type History } from './Widgets.tsx';

/** The query key of every big-screen query (list, detail, data, shares): invalidating it refreshes them all. */
export const SCREENS = 'screens';
/** How often a viewed or designed screen asks for its widgets' data. */
export const DATA_REFRESH_MS = 5_000;

/** The size of an element, followed as it changes. */
export function useSize<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(
      ([entry]) => entry && setSize({ width: entry.contentRect.width, height: entry.contentRect.height }),
    );
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, size] as const;
}

/**
 * The recent values of the device variables the screen's charts show, loaded once when the page opens from the
 * telemetry history route (for whom may read it), so that a chart does not start empty: per widget, [time, value].
 */
export function useRecentHistory(widgets: ScreenWidget[]): History | undefined {
  const user = useSession();
  const charts = widgets.flatMap((w) =>
    historyWidgetKinds.includes(w.kind) && w.binding.source === 'device' && w.binding.deviceId && w.binding.variable
      ? [{ id: w.id, deviceId: w.binding.deviceId, variable: w.binding.variable }]
      : [],
  );
  const recent = useQuery({
    queryKey: [SCREENS, 'recent', charts],
    enabled: charts.length > 0 && can(user, devicePerm.deviceList),
    staleTime: Infinity,
    queryFn: async () => {
      const to = new Date(Date.now() + 60_000);
      const from = new Date(to.getTime() - SCREEN_RECENT_MS);
      const seriesOf = new Map<string, Promise<Array<[string, number]>>>();
      const load = (deviceId: string, variable: string) =>
        callRoute('telemetry.history', {
          query: { id: deviceId, variables: variable, from: from.toISOString(), to: to.toISOString(), pageSize: 1000 },
        })
          .then(([series]) =>
            (series?.points ?? []).flatMap((p) => (p.value === null ? [] : [[p.ts, p.value] as [string, number]])).slice(-HISTORY_KEPT),
          )
          // A device gone or outside the station: the chart starts from the live values, as before.
          .catch(() => []);
      const history: History = {};
      for (const c of charts) {
        const key = `${c.deviceId}\0${c.variable}`;
        if (!seriesOf.has(key)) seriesOf.set(key, load(c.deviceId, c.variable));
        history[c.id] = await seriesOf.get(key)!;
      }
      return history;
    },
  });
  return recent.data;
}
