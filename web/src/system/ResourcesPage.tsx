import './ops-i18n.ts';
import { Fragment, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Badge, Flex, Table, Text, TextField } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { builtinMenus, builtinNames, englishTitleOf } from '@iot/contracts/menu/catalogue.ts';
import { callRoute } from '../api/client.ts';
import { SelectInput } from '../ui/widgets.tsx';
import { builtinTargetName } from './logNames.ts';

type ResourceRow = Awaited<ReturnType<typeof callRoute<'resource.list'>>>[number];
/** The select's value for "every module" (a select item cannot be empty). */
const ALL = '*';

/** The built-in entry (button or interface) each permission is granted through, by permission. */
const entryOf = new Map(builtinMenus.filter((m) => m.type !== 'menu' && m.permission).map((m) => [m.permission!, m]));

/**
 * Where an interface belongs, in the user's language: the screen its permission is under (`alarm:contact:add` under
 * 告警联系人), or the route table's tag for one no screen holds.
 */
function moduleOf(r: ResourceRow, lang: string): { key: string; label: string } {
  const screen = r.permission.split(':').slice(0, 2).join('.');
  const zh = builtinNames.get(screen);
  if (!zh) return { key: r.module, label: r.module };
  return { key: screen, label: lang === 'en' ? (englishTitleOf({ id: screen, type: 'menu' }) ?? zh) : zh };
}

/** What an interface does: the route's own summary in English, the name of the entry that grants it in Chinese. */
function summaryOf(r: ResourceRow, lang: string): string {
  if (lang === 'en') return r.summary;
  const entry = entryOf.get(r.permission);
  return entry ? entry.name : r.permission;
}

const holders = (names: Array<{ id: string; name: string }>, none: string) =>
  names.length === 0 ? (
    <Text color="gray">{none}</Text>
  ) : (
    <Flex gap="1" wrap="wrap">
      {names.map((n) => (
        <Badge key={n.id} variant="soft">
          {n.name}
        </Badge>
      ))}
    </Flex>
  );

/** System management → resources (spec §2): the interfaces the route table guards, by module, and who holds each. */
export function ResourcesPage() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const [module, setModule] = useState(ALL);
  const [keyword, setKeyword] = useState('');
  const all = useQuery({ queryKey: ['resources'], queryFn: () => callRoute('resource.list', { query: {} }) });
  // Role names as their screens show them (a built-in role in the user's language).
  const named = (all.data ?? []).map((r) => ({
    ...r,
    roles: r.roles.map((role) => ({ ...role, name: builtinTargetName('role', role.id, role.name, lang) })),
    where: moduleOf(r, lang),
    what: summaryOf(r, lang),
  }));
  const modules = [...new Map(named.map((r) => [r.where.key, r.where.label]))].sort((a, b) => a[1].localeCompare(b[1], lang));
  const word = keyword.trim().toLowerCase();
  const rows = named.filter(
    (r) =>
      (module === ALL || r.where.key === module) &&
      (!word || [r.path, r.permission, r.summary, r.what].some((s) => s.toLowerCase().includes(word))),
  );
  const byModule = new Map<string, typeof rows>();
  for (const r of rows) byModule.set(r.where.label, [...(byModule.get(r.where.label) ?? []), r]);
  return (
    <Flex direction="column" gap="3">
      <Flex gap="3" align="end" wrap="wrap">
        <label>
          <Text as="div" size="2">
            {t('resource.module')}
          </Text>
          <div style={{ width: 200 }}>
            <SelectInput
              name="module"
              value={module}
              onChange={setModule}
              options={[{ value: ALL, label: t('resource.allModules') }, ...modules.map(([value, label]) => ({ value, label }))]}
            />
          </div>
        </label>
        <label>
          <Text as="div" size="2">
            {t('resource.keyword')}
          </Text>
          <TextField.Root
            name="keyword"
            style={{ width: 280 }}
            placeholder={t('resource.keywordHint')}
            value={keyword}
            onChange={(e) => setKeyword(e.target.value)}
          />
        </label>
        <Text size="2" color="gray">
          {t('resource.count', { count: rows.length })}
        </Text>
      </Flex>
      {all.isSuccess && rows.length === 0 ? (
        <Text color="gray">{t('resource.empty')}</Text>
      ) : (
        <Table.Root size="1" variant="surface">
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeaderCell width="70px">{t('resource.method')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('resource.path')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('resource.summary')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('resource.permission')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('resource.roles')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('resource.apps')}</Table.ColumnHeaderCell>
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {[...byModule].map(([name, group]) => (
              <Fragment key={name}>
                <Table.Row data-testid="resource-module">
                  <Table.Cell colSpan={6}>
                    <Text weight="bold">{name}</Text>{' '}
                    <Text size="1" color="gray">
                      ({group.length})
                    </Text>
                  </Table.Cell>
                </Table.Row>
                {group.map((r) => (
                  <Table.Row key={r.name}>
                    <Table.Cell>
                      <Badge color="gray">{r.method}</Badge>
                    </Table.Cell>
                    <Table.Cell>
                      <code>{r.path}</code>
                    </Table.Cell>
                    <Table.Cell>{r.what}</Table.Cell>
                    <Table.Cell>
                      <code>{r.permission}</code>
                    </Table.Cell>
                    <Table.Cell>{holders(r.roles, t('resource.none'))}</Table.Cell>
                    <Table.Cell>{holders(r.apps, t('resource.none'))}</Table.Cell>
                  </Table.Row>
                ))}
              </Fragment>
            ))}
          </Table.Body>
        </Table.Root>
      )}
    </Flex>
  );
}
