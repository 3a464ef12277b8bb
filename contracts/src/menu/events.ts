import type { DomainEvent } from '../event.ts';
import type { MenuType } from '../identity/menu.ts';

/** What a menu entry is made of, as its events carry it. */
export interface MenuFields {
  type: MenuType;
  name: string;
  routerName: string | null;
  icon: string | null;
  permission: string | null;
  path: string;
  component: string | null;
  sort: number;
  parentId: string | null;
}

/** What can happen to an entry of the platform's menu catalogue. */
export type MenuEvent =
  | DomainEvent<'MenuCreated', MenuFields & { menuId: string; builtin: boolean }>
  | DomainEvent<'MenuUpdated', MenuFields & { menuId: string }>
  | DomainEvent<'MenuReordered', { menuId: string; sort: number; parentId: string | null }>
  | DomainEvent<'MenuDeleted', { menuId: string }>;

export type MenuEventType = MenuEvent['type'];
