// @vitest-environment jsdom
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { MenuNode } from '@iot/contracts/identity/menu.ts';
import { renderScreen } from '../test/render.tsx';
import { MenuChecklist } from './MenuChecklist.tsx';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const node = (id: string, title: string, children: MenuNode[] = [], type: MenuNode['type'] = 'menu'): MenuNode => ({
  id,
  type,
  name: title,
  title,
  routerName: null,
  icon: null,
  permission: type === 'menu' ? null : `x:${id}`,
  path: `/${id}`,
  component: null,
  sort: 0,
  parentId: null,
  builtin: false,
  renamed: false,
  children,
});
const tree = [node('area', 'Area', [node('screen', 'Screen', [node('list', 'List', [], 'interface'), node('add', 'Add', [], 'button')])])];

function Harness({ initial }: { initial: string[] }) {
  const [value, setValue] = useState(initial);
  return (
    <>
      <MenuChecklist tree={tree} value={value} onChange={setValue} />
      <output data-testid="value">{[...value].sort().join(',')}</output>
    </>
  );
}
const box = (label: string) => screen.getByRole('checkbox', { name: new RegExp(`^${label}(?![a-z])`) });
const state = (label: string) => box(label).getAttribute('data-state');

describe('role permission tree (issue 9: was flat)', () => {
  it('shows the menu hierarchy with tri-state boxes: some children ticked is indeterminate, all is checked', async () => {
    const user = userEvent.setup();
    renderScreen(<Harness initial={['area', 'screen', 'list']} />);
    // Nested: each entry indented under its parent.
    const indent = (label: string) => parseInt(box(label).closest('label')!.style.paddingLeft || '0', 10);
    expect([indent('Area'), indent('Screen'), indent('List')]).toEqual([0, 20, 40]);
    expect([state('Area'), state('Screen'), state('List'), state('Add')]).toEqual([
      'indeterminate',
      'indeterminate',
      'checked',
      'unchecked',
    ]);
    await user.click(box('Add'));
    expect([state('Area'), state('Screen')]).toEqual(['checked', 'checked']);
    // Unticking a parent unticks everything under it; ticking it ticks everything.
    await user.click(box('Screen'));
    expect(screen.getByTestId('value').textContent).toBe('area');
    await user.click(box('Area'));
    expect(screen.getByTestId('value').textContent).toBe('add,area,list,screen');
  });
});
