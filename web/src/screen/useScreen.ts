import { useEffect, useRef, useState } from 'react';

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
