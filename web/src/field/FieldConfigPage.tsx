import './i18n.ts';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { Badge, Button, Card, Checkbox, Flex, Table, Text, TextField } from '@radix-ui/themes';
import { fieldTypes, type FieldDefinition, type FieldSiteNode, type SiteContact } from '@iot/contracts/field/model.ts';
import { fieldPerm } from '@iot/contracts/field/permissions.ts';
import { callRoute } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { useListChange } from '../ui/crud.tsx';
import { Field } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { SelectInput } from '../ui/widgets.tsx';
import { DateTimeInput } from '../ui/DateTimeInput.tsx';

/** The query key every read of the screen sits under: a save refreshes them all. */
const FIELD = 'fieldConfig';

type TreeNode = FieldSiteNode & { children: TreeNode[] };

function treeOf(nodes: FieldSiteNode[]): TreeNode[] {
  const byId = new Map<string, TreeNode>(nodes.map((n) => [n.id, { ...n, children: [] }]));
  const roots: TreeNode[] = [];
  for (const n of byId.values()) {
    const parent = n.parentId ? byId.get(n.parentId) : undefined;
    if (parent) parent.children.push(n);
    else roots.push(n);
  }
  return roots;
}

/** A branch of the site picker: sites are buttons, other groups only hold them. */
function SiteBranch({
  node,
  depth,
  selected,
  onSelect,
}: {
  node: TreeNode;
  depth: number;
  selected: string | null;
  onSelect: (id: string) => void;
}) {
  const { t } = useTranslation();
  return (
    <div role="treeitem" aria-selected={selected === node.id} aria-expanded={node.children.length > 0 || undefined}>
      <Flex align="center" gap="2" style={{ paddingLeft: depth * 14, minHeight: 28 }}>
        {node.isSite ? (
          <Button size="1" variant={selected === node.id ? 'solid' : 'ghost'} onClick={() => onSelect(node.id)} data-testid="field-site">
            {node.name}
          </Button>
        ) : (
          <Text size="2" color="gray">
            {node.name}
          </Text>
        )}
        {node.configured && (
          <Badge color="green" size="1">
            {t('field.configured')}
          </Badge>
        )}
      </Flex>
      {node.children.map((c) => (
        <SiteBranch key={c.id} node={c} depth={depth + 1} selected={selected} onSelect={onSelect} />
      ))}
    </div>
  );
}

interface FormState {
  commissioningDate: string;
  ratedCapacityKw: string;
  address: string;
  contacts: SiteContact[];
  custom: Record<string, string>;
}

/** The site's parameters as the form edits them (every value a string), and back to the route's body. */
function ParametersForm({ groupId, definitions, mayEdit }: { groupId: string; definitions: FieldDefinition[]; mayEdit: boolean }) {
  const { t, i18n } = useTranslation();
  const change = useListChange(FIELD);
  const site = useQuery({ queryKey: [FIELD, 'site', groupId], queryFn: () => callRoute('fieldConfig.site', { query: { groupId } }) });
  const [form, setForm] = useState<FormState | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  useEffect(() => {
    const s = site.data;
    if (!s) return;
    setErrors({});
    setForm({
      commissioningDate: s.commissioningDate ?? '',
      ratedCapacityKw: s.ratedCapacityKw === null ? '' : String(s.ratedCapacityKw),
      address: s.address,
      contacts: s.contacts,
      custom: Object.fromEntries(Object.entries(s.custom).map(([k, v]) => [k, v === null ? '' : String(v)])),
    });
  }, [site.data]);
  if (!form || !site.data) return null;
  const label = (d: FieldDefinition) => (i18n.language === 'en' ? d.labelEn : d.labelZh);
  const set = (patch: Partial<FormState>) => setForm({ ...form, ...patch });
  const setContact = (i: number, patch: Partial<SiteContact>) =>
    set({ contacts: form.contacts.map((c, j) => (j === i ? { ...c, ...patch } : c)) });

  const save = () => {
    const problems: Record<string, string> = {};
    const number = (text: string, key: string) => {
      if (text.trim() === '') return null;
      const n = Number(text);
      if (!Number.isFinite(n)) problems[key] = t('field.badNumber');
      return n;
    };
    const ratedCapacityKw = number(form.ratedCapacityKw, 'ratedCapacityKw');
    const custom: Record<string, string | number | null> = {};
    for (const d of definitions) {
      const text = form.custom[d.key] ?? '';
      if (d.required && text.trim() === '') problems[`custom.${d.key}`] = t('field.mustFill');
      custom[d.key] = d.type === 'number' ? number(text, `custom.${d.key}`) : text.trim() === '' ? null : text.trim();
    }
    form.contacts.forEach((c, i) => {
      if (c.name.trim() === '') problems[`contacts.${i}`] = t('field.mustFill');
    });
    setErrors(problems);
    if (Object.keys(problems).length > 0) return;
    void change(
      () =>
        callRoute('fieldConfig.save', {
          body: {
            groupId,
            commissioningDate: form.commissioningDate || null,
            ratedCapacityKw,
            address: form.address,
            contacts: form.contacts,
            custom,
          },
        }),
      t('field.saved'),
    );
  };

  return (
    <Card aria-label={t('field.parameters')}>
      <Flex justify="between" align="center" mb="2">
        <Text size="3" weight="bold" data-testid="field-site-title">
          {site.data.name} · {t('field.parameters')}
        </Text>
        <Text size="1" color="gray">
          {site.data.updateTime ? t('field.lastSaved', { time: formatDate(site.data.updateTime) }) : t('field.neverSaved')}
        </Text>
      </Flex>
      <fieldset disabled={!mayEdit} style={{ border: 0, padding: 0, margin: 0 }}>
        <Flex gap="3" wrap="wrap">
          <div style={{ flex: '1 1 200px' }}>
            <Field label={t('field.commissioningDate')}>
              <DateTimeInput
                kind="date"
                aria-label={t('field.commissioningDate')}
                value={form.commissioningDate}
                onChange={(v) => set({ commissioningDate: v })}
              />
            </Field>
          </div>
          <div style={{ flex: '1 1 200px' }}>
            <Field label={t('field.ratedCapacity')} error={errors.ratedCapacityKw}>
              <TextField.Root inputMode="decimal" value={form.ratedCapacityKw} onChange={(e) => set({ ratedCapacityKw: e.target.value })} />
            </Field>
          </div>
        </Flex>
        <Field label={t('field.address')}>
          <TextField.Root value={form.address} maxLength={256} onChange={(e) => set({ address: e.target.value })} />
        </Field>
        <Text as="div" size="2" weight="bold" mt="3" mb="1">
          {t('field.contacts')}
        </Text>
        {form.contacts.map((c, i) => (
          <Flex key={i} gap="2" align="start" mb="1">
            <Field label={t('field.contactName')} required error={errors[`contacts.${i}`]}>
              <TextField.Root value={c.name} maxLength={32} onChange={(e) => setContact(i, { name: e.target.value })} />
            </Field>
            <Field label={t('field.contactPhone')}>
              <TextField.Root value={c.phone} maxLength={32} onChange={(e) => setContact(i, { phone: e.target.value })} />
            </Field>
            <Field label={t('field.contactRole')}>
              <TextField.Root value={c.role} maxLength={32} onChange={(e) => setContact(i, { role: e.target.value })} />
            </Field>
            <Button variant="ghost" color="red" mt="5" onClick={() => set({ contacts: form.contacts.filter((_, j) => j !== i) })}>
              {t('field.removeContact')}
            </Button>
          </Flex>
        ))}
        <Button variant="soft" size="1" onClick={() => set({ contacts: [...form.contacts, { name: '', phone: '', role: '' }] })}>
          {t('field.addContact')}
        </Button>
        <Text as="div" size="2" weight="bold" mt="3" mb="1">
          {t('field.custom')}
        </Text>
        {definitions.length === 0 && (
          <Text as="div" size="2" color="gray">
            {t('field.noCustom')}
          </Text>
        )}
        <Flex gap="3" wrap="wrap">
          {definitions.map((d) => (
            <div key={d.key} style={{ flex: '1 1 200px' }}>
              <Field label={label(d)} required={d.required} error={errors[`custom.${d.key}`]}>
                <TextField.Root
                  type={d.type === 'date' ? 'date' : 'text'}
                  inputMode={d.type === 'number' ? 'decimal' : undefined}
                  value={form.custom[d.key] ?? ''}
                  onChange={(e) => set({ custom: { ...form.custom, [d.key]: e.target.value } })}
                />
              </Field>
            </div>
          ))}
        </Flex>
      </fieldset>
      {mayEdit && (
        <Flex justify="end" mt="3">
          <Button onClick={save}>{t('field.save')}</Button>
        </Flex>
      )}
    </Card>
  );
}

const blankDefinition = { key: '', labelZh: '', labelEn: '', type: 'text' as FieldDefinition['type'], required: false };

/** The tenant's custom fields: a row per field, and a row to define a new one (or redefine one by its key). */
function DefinitionsEditor({ definitions, mayDefine }: { definitions: FieldDefinition[]; mayDefine: boolean }) {
  const { t, i18n } = useTranslation();
  const change = useListChange(FIELD);
  const [draft, setDraft] = useState(blankDefinition);
  const typeOptions = fieldTypes.map((v) => ({ value: v, label: t(`field.types.${v}`) }));
  return (
    <Card aria-label={t('field.definitions')}>
      <Text as="div" size="3" weight="bold" mb="2">
        {t('field.definitions')}
      </Text>
      <Table.Root size="1">
        <Table.Header>
          <Table.Row>
            <Table.ColumnHeaderCell>{t('field.key')}</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>{t('field.labelZh')}</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>{t('field.labelEn')}</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>{t('field.type')}</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>{t('field.required')}</Table.ColumnHeaderCell>
            {mayDefine && <Table.ColumnHeaderCell />}
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {definitions.map((d) => (
            <Table.Row key={d.key}>
              <Table.Cell>{d.key}</Table.Cell>
              <Table.Cell>{d.labelZh}</Table.Cell>
              <Table.Cell>{d.labelEn}</Table.Cell>
              <Table.Cell>{t(`field.types.${d.type}`)}</Table.Cell>
              <Table.Cell>{d.required ? t('field.yes') : t('field.no')}</Table.Cell>
              {mayDefine && (
                <Table.Cell>
                  <Flex gap="2">
                    <Button size="1" variant="ghost" onClick={() => setDraft(d)}>
                      {t('common.edit')}
                    </Button>
                    <Button
                      size="1"
                      variant="ghost"
                      color="red"
                      onClick={() =>
                        void change(() => callRoute('fieldConfig.removeField', { query: { key: d.key } }), t('field.removed'), {
                          message: t('field.removeQuestion', { name: i18n.language === 'en' ? d.labelEn : d.labelZh }),
                          danger: true,
                        })
                      }
                    >
                      {t('field.remove')}
                    </Button>
                  </Flex>
                </Table.Cell>
              )}
            </Table.Row>
          ))}
          {mayDefine && (
            <Table.Row>
              <Table.Cell>
                <TextField.Root
                  size="1"
                  aria-label={t('field.key')}
                  value={draft.key}
                  maxLength={32}
                  onChange={(e) => setDraft({ ...draft, key: e.target.value })}
                />
              </Table.Cell>
              <Table.Cell>
                <TextField.Root
                  size="1"
                  aria-label={t('field.labelZh')}
                  value={draft.labelZh}
                  maxLength={32}
                  onChange={(e) => setDraft({ ...draft, labelZh: e.target.value })}
                />
              </Table.Cell>
              <Table.Cell>
                <TextField.Root
                  size="1"
                  aria-label={t('field.labelEn')}
                  value={draft.labelEn}
                  maxLength={64}
                  onChange={(e) => setDraft({ ...draft, labelEn: e.target.value })}
                />
              </Table.Cell>
              <Table.Cell>
                <SelectInput
                  name={t('field.type')}
                  value={draft.type}
                  options={typeOptions}
                  onChange={(v) => setDraft({ ...draft, type: v as FieldDefinition['type'] })}
                />
              </Table.Cell>
              <Table.Cell>
                <Checkbox
                  aria-label={t('field.required')}
                  checked={draft.required}
                  onCheckedChange={(v) => setDraft({ ...draft, required: v === true })}
                />
              </Table.Cell>
              <Table.Cell>
                <Button
                  size="1"
                  disabled={!draft.key.trim() || !draft.labelZh.trim() || !draft.labelEn.trim()}
                  onClick={() =>
                    void change(() => callRoute('fieldConfig.define', { body: draft }), t('field.defined')).then((done) => {
                      if (done) setDraft(blankDefinition);
                    })
                  }
                >
                  {t('field.define')}
                </Button>
              </Table.Cell>
            </Table.Row>
          )}
        </Table.Body>
      </Table.Root>
    </Card>
  );
}

function SiteDevices({ groupId }: { groupId: string }) {
  const { t } = useTranslation();
  const devices = useQuery({
    queryKey: [FIELD, 'devices', groupId],
    queryFn: () => callRoute('fieldConfig.devices', { query: { groupId } }),
  });
  return (
    <Card aria-label={t('field.devices')} style={{ flex: '0 0 320px' }}>
      <Text as="div" size="3" weight="bold" mb="2">
        {t('field.devices')}
      </Text>
      {devices.data?.length === 0 && (
        <Text size="2" color="gray">
          {t('field.noDevices')}
        </Text>
      )}
      <Table.Root size="1">
        <Table.Body>
          {(devices.data ?? []).map((d) => (
            <Table.Row key={d.id} data-testid="field-device">
              <Table.Cell>
                <Text as="div" size="2">
                  {d.name}
                </Text>
                <Text as="div" size="1" color="gray">
                  {d.sn} · {d.productName ?? ''} · {d.groupName ?? ''}
                </Text>
              </Table.Cell>
              <Table.Cell>
                <Badge color={d.status === 'online' ? 'green' : 'gray'}>{t(`field.statuses.${d.status}`)}</Badge>
              </Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table.Root>
    </Card>
  );
}

/**
 * Field configuration (issue 20, Operation center): pick a site on the group tree, edit its on-site parameters
 * (commissioning date, rated capacity, address, contacts, the tenant's custom fields) beside its devices, and
 * define the custom fields every site of the tenant carries.
 */
export function FieldConfigPage() {
  const { t } = useTranslation();
  const me = useSession();
  const [selected, setSelected] = useState<string | null>(null);
  const sites = useQuery({ queryKey: [FIELD, 'sites'], queryFn: () => callRoute('fieldConfig.sites', {}) });
  const definitions = useQuery({ queryKey: [FIELD, 'fields'], queryFn: () => callRoute('fieldConfig.fields', {}) });
  const tree = useMemo(() => treeOf(sites.data ?? []), [sites.data]);
  const anySite = (sites.data ?? []).some((n) => n.isSite);
  return (
    <Flex direction="column" gap="3">
      <Flex gap="3" align="start">
        <Card aria-label={t('field.sites')} style={{ flex: '0 0 240px' }}>
          <Text as="div" size="2" weight="bold" mb="2">
            {t('field.sites')}
          </Text>
          <div role="tree" aria-label={t('field.sites')}>
            {tree.map((n) => (
              <SiteBranch key={n.id} node={n} depth={0} selected={selected} onSelect={setSelected} />
            ))}
          </div>
          {sites.data && !anySite && (
            <Text as="div" size="2" color="gray">
              {t('field.noSites')}
            </Text>
          )}
        </Card>
        <div style={{ flex: '1 1 auto', minWidth: 0 }}>
          {selected ? (
            <ParametersForm groupId={selected} definitions={definitions.data ?? []} mayEdit={can(me, fieldPerm.edit)} />
          ) : (
            <Card>
              <Text size="2" color="gray">
                {t('field.pickSite')}
              </Text>
            </Card>
          )}
        </div>
        {selected && <SiteDevices groupId={selected} />}
      </Flex>
      <DefinitionsEditor definitions={definitions.data ?? []} mayDefine={can(me, fieldPerm.field)} />
    </Flex>
  );
}
