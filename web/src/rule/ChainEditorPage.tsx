import { useCallback, useEffect, useMemo, useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type Connection,
  type Edge,
  type EdgeChange,
  type Node,
  type NodeChange,
  type NodeProps,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import {
  Badge,
  Box,
  Button,
  Card,
  Checkbox,
  Dialog,
  Flex,
  Separator,
  Switch,
  Table,
  Tabs,
  Text,
  TextArea,
  TextField,
} from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { ROOT_CHAIN_ID, ruleNodeKinds, rulePerm, type RuleNodeKind } from '@iot/contracts';
import { callRoute, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { confirm, notice } from '../ui/feedback.tsx';
import { Field, useRouteLeaveGuard } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { Loading } from '../ui/Loading.tsx';
import { SelectInput } from '../ui/widgets.tsx';
import { chainName, nodeName } from './chain-name.ts';
import { defaultConfig, faultsOf, fieldsOf, labelsOf, type ChainFault, type EditorChain, type EditorNode } from './editor-model.ts';

const DRAG_TYPE = 'application/x-rule-node';
const HISTORY = 100;
type RuleNodeData = { node: EditorNode; first: boolean; faulty: boolean; debugging: boolean; kindName: string };
type FlowNode = Node<RuleNodeData, 'rule'>;

/** A node on the canvas: its name and kind, one input on the left, one output on the right (links carry the labels). */
function RuleNodeView({ data, selected }: NodeProps<FlowNode>) {
  const { t } = useTranslation();
  return (
    <div
      className="rule-node"
      data-testid={`rule-node-${data.node.id}`}
      style={{
        padding: '6px 10px',
        borderRadius: 6,
        minWidth: 120,
        background: 'var(--color-panel-solid)',
        border: `2px solid ${data.faulty ? 'var(--red-9)' : selected ? '#2E68EA' : 'var(--gray-7)'}`,
      }}
    >
      <Handle type="target" position={Position.Left} />
      <Flex direction="column" gap="1">
        <Flex gap="1" align="center">
          <Text size="2" weight="bold">
            {nodeName(t, data.node)}
          </Text>
          {data.debugging && (
            <Badge size="1" color="orange">
              {t('rule.editor.debugSwitch')}
            </Badge>
          )}
        </Flex>
        <Text size="1" color="gray">
          {data.first ? '▶ ' : ''}
          {data.kindName}
        </Text>
      </Flex>
      <Handle type="source" position={Position.Right} />
    </div>
  );
}
const nodeTypes = { rule: RuleNodeView };

const pretty = (value: unknown) => JSON.stringify(value, null, 2);
const jsonStyle = { fontSize: 11, margin: '2px 0', maxHeight: 160, overflow: 'auto', background: 'var(--gray-2)', padding: 4 } as const;
const newId = (kind: string, taken: Set<string>) => {
  for (let i = 1; ; i++) if (!taken.has(`${kind}${i}`)) return `${kind}${i}`;
};

/** The form of a node, generated from its kind's schema: text, number, switch, choice, or JSON for lists. */
function NodeForm({
  chainId,
  node,
  first,
  onChange,
  onFirst,
  onDelete,
}: {
  chainId: string;
  node: EditorNode;
  first: boolean;
  onChange: (node: EditorNode) => void;
  onFirst: () => void;
  onDelete: () => void;
}) {
  const { t } = useTranslation();
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  useEffect(() => setDrafts({}), [node.id]);
  const set = (name: string, value: unknown) => {
    const config = { ...node.config };
    if (value === undefined) delete config[name];
    else config[name] = value;
    onChange({ ...node, config });
  };
  return (
    <Flex direction="column" gap="2" data-testid="node-form">
      <Text size="1" color="gray">
        {t(`rule.kinds.${node.kind}`)} · {node.id}
      </Text>
      <Field label={t('rule.name')} required>
        <TextField.Root
          aria-label={t('rule.name')}
          value={node.name}
          maxLength={64}
          onChange={(e) => onChange({ ...node, name: e.target.value })}
        />
      </Field>
      {fieldsOf(node.kind).map(({ name, kind }) => {
        const label = t(`rule.fields.${name}`, { defaultValue: name });
        const value = node.config[name];
        if (kind.type === 'boolean')
          return (
            <Text as="label" size="2" key={name}>
              <Flex gap="2" align="center">
                <Checkbox checked={value === true} onCheckedChange={(v) => set(name, v === true)} aria-label={label} />
                {label}
              </Flex>
            </Text>
          );
        if (kind.type === 'enum')
          return (
            <Field label={label} key={name}>
              <SelectInput
                name={name}
                value={typeof value === 'string' ? value : null}
                onChange={(v) => set(name, v)}
                options={kind.options.map((o) => ({ value: o, label: t(`rule.options.${o}`, { defaultValue: o }) }))}
              />
            </Field>
          );
        if (kind.type === 'json') {
          const text = drafts[name] ?? (value === undefined ? '' : pretty(value));
          let invalid = false;
          try {
            if (text.trim()) JSON.parse(text);
          } catch {
            invalid = true;
          }
          return (
            <Field label={label} key={name} hint={t('rule.editor.jsonHint')} error={invalid ? t('rule.editor.badJson') : undefined}>
              <TextArea
                aria-label={label}
                rows={4}
                value={text}
                style={{ fontFamily: 'monospace' }}
                onChange={(e) => {
                  const next = e.target.value;
                  setDrafts((d) => ({ ...d, [name]: next }));
                  try {
                    set(name, next.trim() ? JSON.parse(next) : undefined);
                  } catch {
                    // kept as typed until it is JSON
                  }
                }}
              />
            </Field>
          );
        }
        return (
          <Field label={label} key={name}>
            <TextField.Root
              aria-label={label}
              type={kind.type === 'number' ? 'number' : 'text'}
              value={value === undefined || value === null ? '' : String(value)}
              onChange={(e) => {
                const raw = e.target.value;
                if (raw === '' && kind.optional) return set(name, undefined);
                set(name, kind.type === 'number' ? (raw === '' ? undefined : Number(raw)) : raw);
              }}
            />
          </Field>
        );
      })}
      <Separator size="4" my="1" />
      <DebugSwitch chainId={chainId} node={node} />
      <Flex gap="2" mt="2">
        <Button size="1" variant="soft" disabled={first} onClick={onFirst}>
          {t('rule.editor.setFirst')}
        </Button>
        <Button size="1" variant="soft" color="red" onClick={onDelete}>
          {t('rule.editor.deleteNode')}
        </Button>
      </Flex>
    </Flex>
  );
}

const debugKey = (chainId: string) => ['ruleChains', 'debug', chainId];

/** A node's debug switch, in its form: on for a time (minutes, at most 60) and a share of its messages (sample rate). */
function DebugSwitch({ chainId, node }: { chainId: string; node: EditorNode }) {
  const { t } = useTranslation();
  const me = useSession();
  const [minutes, setMinutes] = useState('15');
  const [rate, setRate] = useState('1');
  const switches = useQuery({ queryKey: debugKey(chainId), queryFn: () => callRoute('ruleChain.debug', { query: { id: chainId } }) });
  const on = switches.data?.find((d) => d.nodeId === node.id && d.active);
  const allowed = can(me, rulePerm.editorDebug);
  const setDebug = async (mins: number) => {
    try {
      await callRoute('ruleChain.setDebug', { body: { id: chainId, nodeId: node.id, minutes: mins, sampleRate: Number(rate) || 1 } });
      notice.success(t(mins > 0 ? 'rule.editor.debugOn' : 'rule.editor.debugOff'));
      await switches.refetch();
    } catch (error) {
      notice.error(messageOf(error));
    }
  };
  return (
    <Flex direction="column" gap="1" data-testid="debug-switch">
      <Text as="label" size="2" weight="medium">
        <Flex gap="2" align="center">
          <Switch
            aria-label={t('rule.editor.debugSwitch')}
            checked={!!on}
            disabled={!allowed || switches.isLoading}
            onCheckedChange={(checked) => void setDebug(checked ? Math.min(60, Math.max(1, Number(minutes) || 15)) : 0)}
          />
          {t('rule.editor.debugSwitch')}
        </Flex>
      </Text>
      {on ? (
        <Badge color="orange">{t('rule.editor.debugUntil', { time: formatDate(on.until, true), rate: on.sampleRate })}</Badge>
      ) : (
        <Text size="1" color="gray">
          {t('rule.editor.debugIdle')}
        </Text>
      )}
      {allowed && !on && (
        <Flex gap="2">
          <Field label={t('rule.editor.minutes')}>
            <TextField.Root
              aria-label={t('rule.editor.minutes')}
              type="number"
              min={1}
              max={60}
              value={minutes}
              onChange={(e) => setMinutes(e.target.value)}
            />
          </Field>
          <Field label={t('rule.editor.sampleRate')}>
            <TextField.Root
              aria-label={t('rule.editor.sampleRate')}
              type="number"
              min={0.01}
              max={1}
              step={0.01}
              value={rate}
              onChange={(e) => setRate(e.target.value)}
            />
          </Field>
        </Flex>
      )}
    </Flex>
  );
}

/** A node's last messages in and out, while its debug switch (in the node's form) is on. */
function DebugPanel({ chainId, node }: { chainId: string; node: EditorNode | null }) {
  const { t } = useTranslation();
  const switches = useQuery({ queryKey: debugKey(chainId), queryFn: () => callRoute('ruleChain.debug', { query: { id: chainId } }) });
  const on = switches.data?.find((d) => d.nodeId === node?.id && d.active);
  const traces = useQuery({
    queryKey: ['ruleChains', 'traces', chainId, node?.id],
    enabled: !!node,
    refetchInterval: on ? 2000 : false,
    queryFn: () => callRoute('ruleChain.traces', { query: { id: chainId, nodeId: node!.id, limit: 20 } }),
  });
  if (!node) return <Text color="gray">{t('rule.editor.pickNode')}</Text>;
  return (
    <Flex direction="column" gap="2" data-testid="debug-panel">
      <Text size="2" weight="bold">
        {nodeName(t, node)}
      </Text>
      {on ? (
        <Badge color="orange">{t('rule.editor.debugUntil', { time: formatDate(on.until, true), rate: on.sampleRate })}</Badge>
      ) : (
        <Text size="1" color="gray">
          {t('rule.editor.debugInForm')}
        </Text>
      )}
      <Flex justify="between" align="center">
        <Text size="2" weight="medium">
          {t('rule.editor.lastMessages')}
        </Text>
        <Button size="1" variant="ghost" onClick={() => void traces.refetch()}>
          {t('rule.editor.refresh')}
        </Button>
      </Flex>
      {traces.data?.length === 0 && (
        <Text size="1" color="gray">
          {t('rule.editor.noTraces')}
        </Text>
      )}
      {traces.data?.map((trace) => (
        <Card key={trace.id} data-testid="node-trace">
          <Flex gap="2" align="center" mb="1">
            <Text size="1">{formatDate(trace.createdAt, true)}</Text>
            {trace.labels.map((l) => (
              <Badge key={l} color={l === 'Failure' ? 'red' : 'blue'}>
                {l}
              </Badge>
            ))}
          </Flex>
          {trace.error && (
            <Text size="1" color="red" as="div">
              {trace.error}
            </Text>
          )}
          <Text size="1" weight="medium">
            {t('rule.editor.in')}
          </Text>
          <pre style={jsonStyle}>{pretty(trace.input.data)}</pre>
          <Text size="1" weight="medium">
            {t('rule.editor.out')}
          </Text>
          <pre style={jsonStyle}>{pretty(trace.output.data)}</pre>
        </Card>
      ))}
    </Flex>
  );
}

type Replay = Awaited<ReturnType<typeof callRoute<'ruleChain.replay'>>>;

/** The failures of the chain, and the replay of one (or of a message typed in) through any version. */
function FailuresPanel({ chainId, latest, names }: { chainId: string; latest: number; names: Map<string, string> }) {
  const { t } = useTranslation();
  const me = useSession();
  const failures = useQuery({
    queryKey: ['ruleChains', 'failures', chainId],
    queryFn: () => callRoute('ruleChain.failures', { query: { chainId, pageSize: 20 } }),
  });
  const [version, setVersion] = useState(String(latest));
  const [message, setMessage] = useState(
    pretty({ id: 'replay-1', type: 'telemetry', deviceId: '', ts: new Date().toISOString(), data: { temperature: 25 } }),
  );
  const [result, setResult] = useState<Replay | null>(null);
  useEffect(() => setVersion(String(latest)), [latest]);
  const replay = async (source: { failureId: string } | { message: unknown }) => {
    try {
      const body = { id: chainId, version: Number(version) || undefined, ...source } as Parameters<
        typeof callRoute<'ruleChain.replay'>
      >[1]['body'];
      setResult(await callRoute('ruleChain.replay', { body }));
    } catch (error) {
      notice.error(messageOf(error));
    }
  };
  return (
    <Flex direction="column" gap="2" data-testid="failures-panel">
      <Text size="2" weight="bold">
        {t('rule.editor.failures')}
      </Text>
      {failures.data?.rows.length === 0 && (
        <Text size="1" color="gray">
          {t('rule.editor.noFailures')}
        </Text>
      )}
      {failures.data && failures.data.rows.length > 0 && (
        <Table.Root size="1" variant="surface">
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeaderCell>{t('rule.editor.time')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('rule.editor.node')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('rule.editor.error')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('rule.editor.path')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell />
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {failures.data.rows.map((f) => (
              <Table.Row key={f.id}>
                <Table.Cell>{formatDate(f.createdAt, true)}</Table.Cell>
                <Table.Cell>{f.nodeName}</Table.Cell>
                <Table.Cell>{f.error}</Table.Cell>
                <Table.Cell>{f.path.map((p) => names.get(p) ?? p).join(' → ')}</Table.Cell>
                <Table.Cell>
                  {can(me, rulePerm.editorReplay) && (
                    <Button size="1" variant="ghost" onClick={() => void replay({ failureId: f.id })}>
                      {t('rule.editor.replay')}
                    </Button>
                  )}
                </Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
      )}
      {can(me, rulePerm.editorReplay) && (
        <>
          <Text size="2" weight="bold" mt="2">
            {t('rule.editor.replayTitle')}
          </Text>
          <Field label={t('rule.version')}>
            <TextField.Root
              aria-label={t('rule.version')}
              type="number"
              min={1}
              value={version}
              onChange={(e) => setVersion(e.target.value)}
            />
          </Field>
          <Field label={t('rule.editor.message')}>
            <TextArea
              aria-label={t('rule.editor.message')}
              rows={6}
              value={message}
              style={{ fontFamily: 'monospace' }}
              onChange={(e) => setMessage(e.target.value)}
            />
          </Field>
          <Button
            onClick={() => {
              try {
                void replay({ message: JSON.parse(message) });
              } catch {
                notice.error(t('rule.editor.badJson'));
              }
            }}
          >
            {t('rule.editor.replayMessage')}
          </Button>
        </>
      )}
      {result && (
        <Box data-testid="replay-result">
          <Text size="2" weight="bold">
            {t('rule.editor.replayResult', { version: result.version, failures: result.failures })}
          </Text>
          {result.steps.map((step, i) => (
            <Card key={i} mt="1">
              <Flex gap="2" align="center">
                <Text size="2" weight="medium">
                  {names.get(step.nodeId) ?? step.nodeId}
                </Text>
                {step.labels.map((l) => (
                  <Badge key={l} color={l === 'Failure' ? 'red' : 'blue'}>
                    {l}
                  </Badge>
                ))}
                {step.dryRun && <Badge color="gray">{t('rule.editor.dryRun')}</Badge>}
              </Flex>
              {step.error && (
                <Text size="1" color="red" as="div">
                  {step.error}
                </Text>
              )}
              <pre style={jsonStyle}>{pretty(step.output.data)}</pre>
            </Card>
          ))}
        </Box>
      )}
    </Flex>
  );
}

/** Asks which label a new link carries: the ones the node can give, or a router's value typed in. */
function LabelDialog({ from, onPick, onClose }: { from: EditorNode | null; onPick: (label: string) => void; onClose: () => void }) {
  const { t } = useTranslation();
  const [value, setValue] = useState('');
  if (!from) return null;
  return (
    <Dialog.Root open onOpenChange={(open) => !open && onClose()}>
      <Dialog.Content maxWidth="420px" aria-describedby={undefined}>
        <Dialog.Title>{t('rule.editor.linkLabel', { node: nodeName(t, from) })}</Dialog.Title>
        <Flex gap="2" wrap="wrap">
          {labelsOf(from).map((label) => (
            <Button key={label} variant="soft" color={label === 'Failure' ? 'red' : undefined} onClick={() => onPick(label)}>
              {label}
            </Button>
          ))}
        </Flex>
        {from.kind === 'router' && (
          <Flex gap="2" mt="3">
            <TextField.Root
              aria-label={t('rule.editor.routerValue')}
              placeholder={t('rule.editor.routerValue')}
              value={value}
              onChange={(e) => setValue(e.target.value)}
            />
            <Button disabled={!value.trim()} onClick={() => onPick(value.trim())}>
              {t('common.confirm')}
            </Button>
          </Flex>
        )}
      </Dialog.Content>
    </Dialog.Root>
  );
}

function Editor({ chainId }: { chainId: string }) {
  const { t } = useTranslation();
  const me = useSession();
  const flow = useReactFlow();
  const detail = useQuery({
    queryKey: ['ruleChains', 'edit', chainId],
    queryFn: async () => {
      const running = await callRoute('ruleChain.detail', { query: { id: chainId } });
      // The editor builds on the latest version, which may not be the running one.
      return running.version === running.latestVersion
        ? running
        : callRoute('ruleChain.detail', { query: { id: chainId, version: running.latestVersion } });
    },
  });
  const [chain, setChain] = useState<EditorChain | null>(null);
  const [history, setHistory] = useState<EditorChain[]>([]);
  const [baseVersion, setBaseVersion] = useState(0);
  const [dirty, setDirty] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  const [pending, setPending] = useState<Connection | null>(null);
  const [faults, setFaults] = useState<ChainFault[]>([]);
  const [tab, setTab] = useState('node');
  const debugSwitches = useQuery({
    queryKey: ['ruleChains', 'debug', chainId],
    queryFn: () => callRoute('ruleChain.debug', { query: { id: chainId } }),
  });
  useRouteLeaveGuard(dirty);

  type Detail = NonNullable<typeof detail.data>;
  const load = useCallback((data: Detail) => {
    const c = data.chain;
    setChain({
      name: c.name,
      description: c.description,
      firstNodeId: c.firstNodeId,
      nodes: c.nodes.map((n, i) => ({ ...n, position: n.position ?? { x: 80 + i * 200, y: 120 } })),
      links: c.links,
    });
    setBaseVersion(data.latestVersion);
    setHistory([]);
    setDirty(false);
    setFaults([]);
  }, []);
  useEffect(() => {
    if (detail.data) load(detail.data);
  }, [detail.data, load]);

  const change = useCallback(
    (next: (c: EditorChain) => EditorChain, remember = true) => {
      setChain((current) => {
        if (!current) return current;
        if (remember) setHistory((h) => [...h.slice(-HISTORY + 1), current]);
        return next(current);
      });
      setDirty(true);
      setFaults([]);
    },
    [setChain],
  );
  const undo = useCallback(() => {
    setHistory((h) => {
      const previous = h.at(-1);
      if (previous) setChain(previous);
      // Back at the chain as loaded: nothing left to save (moves during a drag are remembered when it starts).
      if (h.length === 1) setDirty(false);
      return h.slice(0, -1);
    });
  }, []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const typing = e.target instanceof HTMLElement && /INPUT|TEXTAREA/.test(e.target.tagName);
      if ((e.ctrlKey || e.metaKey) && e.key === 'z' && !typing) {
        e.preventDefault();
        undo();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [undo]);

  const faultyNodes = useMemo(() => new Set(faults.map((f) => f.nodeId)), [faults]);
  const debugging = useMemo(() => new Set(debugSwitches.data?.filter((d) => d.active).map((d) => d.nodeId)), [debugSwitches.data]);
  const nodes: FlowNode[] = useMemo(
    () =>
      (chain?.nodes ?? []).map((node) => ({
        id: node.id,
        type: 'rule',
        position: node.position,
        selected: node.id === selected,
        data: {
          node,
          first: node.id === chain?.firstNodeId,
          faulty: faultyNodes.has(node.id),
          debugging: debugging.has(node.id),
          kindName: t(`rule.kinds.${node.kind}`),
        },
      })),
    [chain, selected, faultyNodes, debugging, t],
  );
  const edges: Edge[] = useMemo(
    () =>
      (chain?.links ?? []).map((l) => ({
        id: `${l.from}\u0000${l.to}\u0000${l.label}`,
        source: l.from,
        target: l.to,
        label: l.label,
        markerEnd: { type: MarkerType.ArrowClosed },
        style: l.label === 'Failure' ? { stroke: 'var(--red-9)' } : undefined,
        labelStyle: { fontSize: 11 },
      })),
    [chain],
  );

  const onNodesChange = (changes: NodeChange<FlowNode>[]) => {
    for (const c of changes) {
      if (c.type === 'select' && c.selected) setSelected(c.id);
      if (c.type === 'position' && c.position) {
        const { id, position } = c;
        change((ch) => ({ ...ch, nodes: ch.nodes.map((n) => (n.id === id ? { ...n, position } : n)) }), false);
      }
      if (c.type === 'remove') removeNode(c.id);
    }
  };
  const onEdgesChange = (changes: EdgeChange[]) => {
    const removed = new Set(changes.filter((c) => c.type === 'remove').map((c) => c.id));
    if (removed.size > 0)
      change((ch) => ({ ...ch, links: ch.links.filter((l) => !removed.has(`${l.from}\u0000${l.to}\u0000${l.label}`)) }));
  };
  const removeNode = (id: string) =>
    change((ch) => {
      const nodesLeft = ch.nodes.filter((n) => n.id !== id);
      return {
        ...ch,
        nodes: nodesLeft,
        links: ch.links.filter((l) => l.from !== id && l.to !== id),
        firstNodeId: ch.firstNodeId === id ? (nodesLeft[0]?.id ?? '') : ch.firstNodeId,
      };
    });
  const addNode = (kind: RuleNodeKind, position?: { x: number; y: number }) => {
    const taken = new Set(chain?.nodes.map((n) => n.id));
    const id = newId(kind, taken);
    const at = position ?? { x: 120 + (chain?.nodes.length ?? 0) * 40, y: 260 + (chain?.nodes.length ?? 0) * 30 };
    change((ch) => ({
      ...ch,
      nodes: [...ch.nodes, { id, name: t(`rule.kinds.${kind}`), kind, config: defaultConfig(kind), position: at }],
      firstNodeId: ch.nodes.length === 0 ? id : ch.firstNodeId,
    }));
    setSelected(id);
    setTab('node');
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    const kind = e.dataTransfer.getData(DRAG_TYPE) as RuleNodeKind;
    if (!ruleNodeKinds.includes(kind)) return;
    addNode(kind, flow.screenToFlowPosition({ x: e.clientX, y: e.clientY }));
  };
  const link = (label: string) => {
    const c = pending;
    setPending(null);
    if (!c?.source || !c.target) return;
    if (chain?.links.some((l) => l.from === c.source && l.to === c.target && l.label === label)) return;
    change((ch) => ({ ...ch, links: [...ch.links, { from: c.source, to: c.target, label }] }));
  };

  const save = async () => {
    if (!chain) return;
    const checked = faultsOf(chain);
    setFaults(checked.faults);
    if (!checked.chain) return notice.error(t('rule.editor.notSaved', { count: checked.faults.length }));
    try {
      const saved = await callRoute('ruleChain.update', { body: { id: chainId, chain: checked.chain, baseVersion } });
      setBaseVersion(saved.version);
      setDirty(false);
      notice.success(t('rule.saved', { version: saved.version }));
      await detail.refetch();
    } catch (error) {
      notice.error(messageOf(error));
    }
  };
  const check = () => {
    if (!chain) return;
    const checked = faultsOf(chain);
    setFaults(checked.faults);
    if (checked.faults.length === 0) notice.success(t('rule.editor.valid'));
  };
  const discard = async () => {
    if (dirty && !(await confirm({ message: t('rule.editor.discardQuestion'), danger: true }))) return;
    if (detail.data) load(detail.data);
  };

  if (!detail.data || !chain) return detail.isError ? <Text color="red">{messageOf(detail.error)}</Text> : <Loading />;
  const selectedNode = chain.nodes.find((n) => n.id === selected) ?? null;
  const names = new Map(chain.nodes.map((n) => [n.id, nodeName(t, n)]));
  const editable = can(me, rulePerm.chainEdit);
  return (
    <Flex direction="column" gap="2" style={{ height: 'calc(100vh - 150px)', minHeight: 520 }}>
      <Flex gap="2" align="center" wrap="wrap">
        <Text weight="bold">{chainName(t, { id: chainId, name: chain.name })}</Text>
        <Badge>{t('rule.editor.basedOn', { version: baseVersion })}</Badge>
        {detail.data.root && <Badge color="blue">{t('rule.root')}</Badge>}
        {dirty && <Badge color="amber">{t('rule.editor.unsaved')}</Badge>}
        <Box flexGrow="1" />
        <Button variant="soft" disabled={history.length === 0} onClick={undo}>
          {t('rule.editor.undo')}
        </Button>
        <Button variant="soft" onClick={check}>
          {t('rule.editor.validate')}
        </Button>
        <Button variant="soft" color="gray" disabled={!dirty} onClick={() => void discard()}>
          {t('rule.editor.discard')}
        </Button>
        {editable && (
          <Button disabled={!dirty} onClick={() => void save()}>
            {t('rule.editor.save')}
          </Button>
        )}
      </Flex>
      {faults.length > 0 && (
        <Card data-testid="chain-faults">
          <Text size="2" weight="bold" color="red">
            {t('rule.editor.faultsTitle')}
          </Text>
          <ul style={{ margin: '4px 0 0 16px', padding: 0 }}>
            {faults.map((f, i) => (
              <li key={i}>
                <Text
                  size="2"
                  color="red"
                  style={{ cursor: f.nodeId ? 'pointer' : undefined }}
                  onClick={() => f.nodeId && setSelected(f.nodeId)}
                >
                  {t(`rule.${f.key}`, f.values)}
                </Text>
              </li>
            ))}
          </ul>
        </Card>
      )}
      <Flex gap="2" style={{ flex: 1, minHeight: 0 }}>
        <Card style={{ width: 150, overflowY: 'auto' }} data-testid="node-palette">
          <Text size="1" color="gray" as="div" mb="2">
            {t('rule.editor.palette')}
          </Text>
          <Flex direction="column" gap="1">
            {ruleNodeKinds.map((kind) => (
              <Button
                key={kind}
                size="1"
                variant="surface"
                draggable
                data-kind={kind}
                onDragStart={(e) => {
                  e.dataTransfer.setData(DRAG_TYPE, kind);
                  e.dataTransfer.effectAllowed = 'move';
                }}
                onClick={() => addNode(kind)}
                title={t('rule.editor.dragHint')}
              >
                {t(`rule.kinds.${kind}`)}
              </Button>
            ))}
          </Flex>
        </Card>
        <Box
          style={{ flex: 1, border: '1px solid var(--gray-6)', borderRadius: 6 }}
          onDragOver={(e) => e.preventDefault()}
          onDrop={onDrop}
          data-testid="chain-canvas"
        >
          <ReactFlow<FlowNode, Edge>
            nodes={nodes}
            edges={edges}
            nodeTypes={nodeTypes}
            onNodesChange={onNodesChange}
            onEdgesChange={onEdgesChange}
            onNodeDragStart={() => setHistory((h) => [...h.slice(-HISTORY + 1), chain])}
            onConnect={(c) => setPending(c)}
            onPaneClick={() => setSelected(null)}
            deleteKeyCode={['Delete', 'Backspace']}
            fitView
            fitViewOptions={{ maxZoom: 1 }}
          >
            <Background />
            <Controls />
          </ReactFlow>
        </Box>
        <Card style={{ width: 380, overflowY: 'auto' }}>
          <Tabs.Root value={tab} onValueChange={setTab}>
            <Tabs.List>
              <Tabs.Trigger value="node">{t('rule.editor.nodeTab')}</Tabs.Trigger>
              <Tabs.Trigger value="debug">{t('rule.editor.debugTab')}</Tabs.Trigger>
              <Tabs.Trigger value="failures">{t('rule.editor.failuresTab')}</Tabs.Trigger>
            </Tabs.List>
            <Box pt="3">
              <Tabs.Content value="node">
                {selectedNode ? (
                  <NodeForm
                    chainId={chainId}
                    node={selectedNode}
                    first={selectedNode.id === chain.firstNodeId}
                    onChange={(node) => change((ch) => ({ ...ch, nodes: ch.nodes.map((n) => (n.id === node.id ? node : n)) }))}
                    onFirst={() => change((ch) => ({ ...ch, firstNodeId: selectedNode.id }))}
                    onDelete={() => {
                      removeNode(selectedNode.id);
                      setSelected(null);
                    }}
                  />
                ) : (
                  <Text color="gray">{t('rule.editor.pickNode')}</Text>
                )}
              </Tabs.Content>
              <Tabs.Content value="debug">
                <DebugPanel chainId={chainId} node={selectedNode} />
              </Tabs.Content>
              <Tabs.Content value="failures">
                <FailuresPanel chainId={chainId} latest={baseVersion} names={names} />
              </Tabs.Content>
            </Box>
          </Tabs.Root>
        </Card>
      </Flex>
      <LabelDialog from={chain.nodes.find((n) => n.id === pending?.source) ?? null} onPick={link} onClose={() => setPending(null)} />
    </Flex>
  );
}

/** The rule chain editor (spec §2, issue 19): the chain of `?id=` (the root chain by default) on a canvas, with its debug panel. */
export function ChainEditorPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const chainId = params.get('id') ?? ROOT_CHAIN_ID;
  const chains = useQuery({
    queryKey: ['ruleChains', 'pick'],
    queryFn: () => callRoute('ruleChain.list', { query: { pageSize: 100 } }),
  });
  return (
    <Flex direction="column" gap="2">
      <Flex gap="2" align="center" style={{ maxWidth: 420 }}>
        <Text size="2" style={{ whiteSpace: 'nowrap' }}>
          {t('rule.editor.chainPick')}
        </Text>
        <SelectInput
          name="chain"
          value={chainId}
          onChange={(id) => setParams({ id })}
          options={(chains.data?.rows ?? []).map((c) => ({
            value: c.id,
            label: c.root ? `${chainName(t, c)} (${t('rule.root')})` : c.name,
          }))}
        />
      </Flex>
      <ReactFlowProvider key={chainId}>
        <Editor chainId={chainId} />
      </ReactFlowProvider>
    </Flex>
  );
}
