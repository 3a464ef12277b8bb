import { useTranslation } from 'react-i18next';
import { Checkbox, Flex, Text } from '@radix-ui/themes';
import type { MenuNode } from '@iot/contracts/identity/menu.ts';
import { useEntryTitle } from '../shell/Layout.tsx';

const descendants = (node: MenuNode): string[] => node.children.flatMap((c) => [c.id, ...descendants(c)]);

/** Adds the ancestors of every chosen entry, so that a granted button's menu shows too. */
export function withAncestors(tree: MenuNode[], ids: string[]): string[] {
  const chosen = new Set(ids);
  const walk = (nodes: MenuNode[]): boolean => {
    let any = false;
    for (const n of nodes) {
      const below = walk(n.children);
      if (below) chosen.add(n.id);
      if (chosen.has(n.id)) any = true;
    }
    return any;
  };
  walk(tree);
  return [...chosen];
}

/** The menu tree with a checkbox per entry; ticking an entry ticks everything under it. */
export function MenuChecklist({ tree, value, onChange }: { tree: MenuNode[]; value: string[]; onChange: (ids: string[]) => void }) {
  const { t } = useTranslation();
  const label = useEntryTitle();
  const chosen = new Set(value);
  const render = (nodes: MenuNode[], depth: number) =>
    nodes.map((n) => {
      const below = descendants(n);
      const all = below.length > 0 && below.every((id) => chosen.has(id));
      const some = below.some((id) => chosen.has(id));
      const state = chosen.has(n.id) && (below.length === 0 || all) ? true : some || chosen.has(n.id) ? 'indeterminate' : false;
      return (
        <div key={n.id}>
          <Text as="label" size="2" className="check-row" style={{ paddingLeft: depth * 20 }}>
            <Flex gap="2" align="center">
              <Checkbox
                checked={state}
                onCheckedChange={(c) => {
                  const ids = [n.id, ...below];
                  onChange(c === true ? [...new Set([...value, ...ids])] : value.filter((id) => !ids.includes(id)));
                }}
              />
              {label(n)}
              {n.type !== 'menu' && (
                <Text size="1" color="gray">
                  ({t(`menuType.${n.type}`)})
                </Text>
              )}
            </Flex>
          </Text>
          {render(n.children, depth + 1)}
        </div>
      );
    });
  return <div className="checklist">{render(tree, 0)}</div>;
}
