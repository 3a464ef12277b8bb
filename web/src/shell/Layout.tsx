import { useEffect, useMemo, useState } from 'react';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { Avatar, DropdownMenu, Flex, IconButton, Text } from '@radix-ui/themes';
import {
  ChevronDownIcon,
  ChevronRightIcon,
  Cross2Icon,
  DoubleArrowLeftIcon,
  DoubleArrowRightIcon,
  ExitIcon,
  LockClosedIcon,
  PersonIcon,
} from '@radix-ui/react-icons';
import { callRoute, setLoggingOut } from '../api/client.ts';
import { sessionStore, useSession } from '../auth/useSession.ts';
import { ChangePasswordDialog } from '../auth/ChangePasswordDialog.tsx';
import { confirm } from '../ui/feedback.tsx';
import { LanguageSwitch } from './LanguageSwitch.tsx';
import { Bell } from './Bell.tsx';
import { StationSwitch } from './StationSwitch.tsx';
import { MenuIcon } from './icons.tsx';
import { builtinTitleKey, flatten, shellPages, staticMenu, trail, type MenuNode } from './menu.ts';
import { HOME_PATH, tagStore, useTags } from './tags.ts';
import { useMenu } from './useMenu.ts';
import { useSettings } from './useSettings.ts';

const COLLAPSE_KEY = 'sidebarCollapsed';

/** Translates a static menu key, shows a server title as it is. */
export function useTitle() {
  const { t, i18n } = useTranslation();
  return (title: string) => (i18n.exists(title) ? t(title) : title);
}

/** The title of a row of the server's menu tree: built-in entries in the user's language, others as stored. */
export function useEntryTitle() {
  const { t, i18n } = useTranslation();
  return (entry: {
    title: string;
    builtin?: boolean;
    renamed?: boolean;
    type?: string;
    path?: string | null;
    permission?: string | null;
  }) => {
    const key = builtinTitleKey(entry);
    return key && i18n.exists(key) ? t(key) : entry.title;
  };
}

function MenuTree({ nodes, collapsed, onExpand }: { nodes: MenuNode[]; collapsed: boolean; onExpand: () => void }) {
  const location = useLocation();
  const title = useTitle();
  const activeTrail = trail(nodes, location.pathname).map((n) => n.key);
  const [open, setOpen] = useState<Set<string>>(new Set(activeTrail));
  // On a deep link the menu arrives after the first render: open the trail once it is known, and on each navigation.
  const trailKey = activeTrail.join('/');
  useEffect(() => {
    setOpen((prev) => new Set([...prev, ...activeTrail]));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [trailKey]);
  const render = (list: MenuNode[], depth: number) => (
    <ul className="menu-list" role={depth === 0 ? 'tree' : 'group'}>
      {list.map((node) => {
        const hasChildren = (node.children?.length ?? 0) > 0;
        const isOpen = open.has(node.key);
        const active = node.path === location.pathname;
        const label = title(node.title);
        return (
          <li key={node.key} role="treeitem" aria-expanded={hasChildren ? isOpen : undefined}>
            {hasChildren ? (
              <button
                type="button"
                className="menu-item"
                data-active={activeTrail.includes(node.key) ? 'true' : undefined}
                style={{ paddingLeft: 16 + depth * 16 }}
                title={label}
                onClick={() => {
                  if (collapsed) onExpand();
                  setOpen((prev) => {
                    const next = new Set(prev);
                    if (next.has(node.key)) next.delete(node.key);
                    else next.add(node.key);
                    return next;
                  });
                }}
              >
                {depth === 0 && <MenuIcon name={node.icon} />}
                {!collapsed && <span className="menu-label">{label}</span>}
                {!collapsed && (isOpen ? <ChevronDownIcon className="menu-caret" /> : <ChevronRightIcon className="menu-caret" />)}
              </button>
            ) : (
              <Link
                to={node.path ?? '/'}
                className="menu-item"
                data-current={active ? 'true' : undefined}
                style={{ paddingLeft: 16 + depth * 16 }}
                title={label}
              >
                {depth === 0 && <MenuIcon name={node.icon} />}
                {!collapsed && <span className="menu-label">{label}</span>}
              </Link>
            )}
            {hasChildren && isOpen && !collapsed && render(node.children!, depth + 1)}
          </li>
        );
      })}
    </ul>
  );
  return (
    <nav className="menu" aria-label="menu">
      {render(nodes, 0)}
    </nav>
  );
}

function TagBar({ menu }: { menu: MenuNode[] }) {
  const { t } = useTranslation();
  const title = useTitle();
  const tags = useTags();
  const location = useLocation();
  const navigate = useNavigate();
  const names = useMemo(
    () =>
      new Map(
        flatten([...menu, ...staticMenu, ...shellPages])
          .filter((n) => n.path)
          .map((n) => [n.path!, n.title]),
      ),
    [menu],
  );
  const nameOf = (path: string) => names.get(path) ?? 'menu.notFound';

  useEffect(() => {
    tagStore.open({ path: HOME_PATH, title: 'menu.home' });
    // A mistyped address gets no tab of its own.
    if (names.has(location.pathname)) tagStore.open({ path: location.pathname, title: nameOf(location.pathname) });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [location.pathname, names]);

  // The active tab stays in sight when the bar overflows.
  useEffect(() => {
    document.querySelector('.tag[data-active]')?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  }, [location.pathname, tags]);

  const ordered = [...tags.filter((tag) => tag.path === HOME_PATH), ...tags.filter((tag) => tag.path !== HOME_PATH)];
  return (
    <Flex className="tag-bar" align="center" gap="1">
      <div className="tag-list" role="tablist">
        {ordered.map((tag) => {
          const active = tag.path === location.pathname;
          return (
            <span key={tag.path} className="tag" role="tab" aria-selected={active} data-active={active ? 'true' : undefined}>
              <Link to={tag.path}>{title(nameOf(tag.path) === 'menu.notFound' ? tag.title : nameOf(tag.path))}</Link>
              {tag.path !== HOME_PATH && (
                <button
                  type="button"
                  className="tag-close"
                  aria-label={t('tags.close')}
                  onClick={() => {
                    const next = tagStore.close(tag.path);
                    if (active) void navigate(next);
                  }}
                >
                  <Cross2Icon width={12} height={12} />
                </button>
              )}
            </span>
          );
        })}
      </div>
      <DropdownMenu.Root>
        <DropdownMenu.Trigger>
          <IconButton variant="ghost" color="gray" aria-label={t('tags.more')} title={t('tags.more')}>
            <ChevronDownIcon />
          </IconButton>
        </DropdownMenu.Trigger>
        <DropdownMenu.Content align="end">
          <DropdownMenu.Item disabled={location.pathname === HOME_PATH} onSelect={() => void navigate(tagStore.close(location.pathname))}>
            {t('tags.closeCurrent')}
          </DropdownMenu.Item>
          <DropdownMenu.Item onSelect={() => tagStore.closeOthers(location.pathname)}>{t('tags.closeOthers')}</DropdownMenu.Item>
          <DropdownMenu.Item
            onSelect={() => {
              tagStore.closeAll();
              void navigate(HOME_PATH);
            }}
          >
            {t('tags.closeAll')}
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Root>
    </Flex>
  );
}

function Breadcrumb({ menu }: { menu: MenuNode[] }) {
  const location = useLocation();
  const title = useTitle();
  const { t } = useTranslation();
  const found = trail(menu, location.pathname);
  const nodes = found.length > 0 ? found : trail([...staticMenu, ...shellPages], location.pathname);
  return (
    <nav className="breadcrumb" aria-label={t('common.breadcrumb')}>
      <Link to={HOME_PATH}>{t('menu.home')}</Link>
      {nodes
        .filter((n) => n.path !== HOME_PATH)
        .map((n) => (
          <span key={n.key}>
            <span className="breadcrumb-sep">/</span>
            {title(n.title)}
          </span>
        ))}
    </nav>
  );
}

export function Layout() {
  const { t } = useTranslation();
  const user = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const menu = useMenu();
  const { systemName, logoUrl } = useSettings();
  // The browser tab follows the system name, which follows the language unless the tenant named its system.
  useEffect(() => {
    if (systemName) document.title = systemName;
  }, [systemName]);
  const [collapsed, setCollapsed] = useState(() => localStorage.getItem(COLLAPSE_KEY) === 'true');
  const [passwordOpen, setPasswordOpen] = useState(false);
  const toggle = (value: boolean) => {
    setCollapsed(value);
    localStorage.setItem(COLLAPSE_KEY, String(value));
  };
  const logout = async () => {
    if (!(await confirm({ message: t('auth.logoutConfirm') }))) return;
    setLoggingOut(true);
    try {
      // Leave first: once the server clears the cookie, the session guard of this page would send to login *with* this
      // page to return to; a deliberate logout returns to nothing.
      await navigate('/login', { replace: true });
      await callRoute('auth.logout', {}, { noRedirect: true }).catch(() => undefined);
      sessionStore.clear({ byUser: true });
      tagStore.reset();
      queryClient.clear();
    } finally {
      setLoggingOut(false);
    }
  };
  const nodes = menu.data ?? [];

  return (
    <div className="shell" data-collapsed={collapsed ? 'true' : undefined}>
      <aside className="sidebar">
        <Link to={HOME_PATH} className="brand" title={systemName}>
          <img src={logoUrl} alt="" height={30} onError={(e) => ((e.target as HTMLImageElement).src = '/favicon.svg')} />
          {!collapsed && <span className="brand-name">{systemName}</span>}
        </Link>
        <MenuTree nodes={nodes} collapsed={collapsed} onExpand={() => toggle(false)} />
      </aside>
      <div className="main">
        <header className="header">
          <IconButton
            variant="ghost"
            color="gray"
            aria-label={collapsed ? t('shell.expand') : t('shell.collapse')}
            title={collapsed ? t('shell.expand') : t('shell.collapse')}
            onClick={() => toggle(!collapsed)}
          >
            {collapsed ? <DoubleArrowRightIcon /> : <DoubleArrowLeftIcon />}
          </IconButton>
          <Breadcrumb menu={nodes} />
          <div style={{ flex: 1 }} />
          <StationSwitch />
          <Bell />
          <LanguageSwitch />
          <DropdownMenu.Root>
            <DropdownMenu.Trigger>
              <button type="button" className="user-button" aria-label={t('shell.userMenu')} title={user?.username}>
                <Avatar size="1" radius="full" fallback={(user?.username ?? '?').slice(0, 1).toUpperCase()} />
                <Text size="2" className="user-name">
                  {user?.username}
                </Text>
                <ChevronDownIcon />
              </button>
            </DropdownMenu.Trigger>
            <DropdownMenu.Content align="end">
              <DropdownMenu.Item onSelect={() => void navigate('/profile')}>
                <PersonIcon />
                {t('menu.profile')}
              </DropdownMenu.Item>
              <DropdownMenu.Item onSelect={() => setPasswordOpen(true)}>
                <LockClosedIcon />
                {t('auth.changePassword')}
              </DropdownMenu.Item>
              <DropdownMenu.Separator />
              <DropdownMenu.Item color="red" onSelect={() => void logout()}>
                <ExitIcon />
                {t('auth.logout')}
              </DropdownMenu.Item>
            </DropdownMenu.Content>
          </DropdownMenu.Root>
        </header>
        <TagBar menu={nodes} />
        <main className="content">
          <Outlet />
        </main>
      </div>
      <ChangePasswordDialog open={passwordOpen} onClose={() => setPasswordOpen(false)} />
    </div>
  );
}
