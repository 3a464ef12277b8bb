import { useSyncExternalStore } from 'react';

export interface Tag {
  path: string;
  title: string;
}

const KEY = 'tagList';
export const HOME_PATH = '/index';
const listeners = new Set<() => void>();

function read(): Tag[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(KEY) ?? '[]') as Tag[];
    return Array.isArray(parsed) ? parsed.filter((t) => typeof t.path === 'string' && typeof t.title === 'string') : [];
  } catch {
    return [];
  }
}

let tags: Tag[] = read();
function write(next: Tag[]): void {
  tags = next;
  localStorage.setItem(KEY, JSON.stringify(next));
  listeners.forEach((l) => l());
}

/** Tag tabs of open views, kept in local storage (spec §2, §9). The home tab cannot be closed. */
export const tagStore = {
  open(tag: Tag): void {
    const found = tags.find((t) => t.path === tag.path);
    if (found) {
      if (found.title !== tag.title) write(tags.map((t) => (t.path === tag.path ? tag : t)));
      return;
    }
    write([...tags, tag]);
  },
  /** Closes one tab and returns the path to show next when it was the active one. */
  close(path: string): string {
    const index = tags.findIndex((t) => t.path === path);
    const next = tags.filter((t) => t.path !== path);
    write(next);
    return next[Math.min(index, next.length - 1)]?.path ?? HOME_PATH;
  },
  closeOthers(path: string): void {
    write(tags.filter((t) => t.path === path || t.path === HOME_PATH));
  },
  closeAll(): void {
    write(tags.filter((t) => t.path === HOME_PATH));
  },
  reset(): void {
    write([]);
  },
};

export function useTags(): Tag[] {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => tags,
  );
}
