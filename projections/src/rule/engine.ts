import {
  compileExpression,
  sideEffectKinds,
  type ForwardMessageType,
  type CompiledExpression,
  type RuleChainDefinition,
  type RuleLink,
  type RuleMessage,
  type RuleNode,
} from '@iot/contracts';
import type { Dispatch, DispatchMetadata } from '@iot/contracts/ports/dispatch.ts';
import { compilePayload, compileTopic, type ForwardMessage } from '../forward/messages.ts';

/**
 * The rule engine: runs a message through a chain version, node by node along the links its nodes name.
 * Pure but for its ports: lookups (enrich), the dispatch port (alarms, commands), other chains, a clock.
 * A node that throws goes out by its Failure link and never stops the chain; every failure is captured
 * with the message as it entered the node, the node, the error and the path the message took.
 */
export interface RuleEnginePorts {
  dispatch: Dispatch;
  /** The device's and product's fields may be answered without a promise (a cache that holds them). */
  lookups: {
    /** The device's fields (name, SN, product, group, ...), or null when the tenant has no such device. */
    device(tenantId: string, deviceId: string): Found | Promise<Found>;
    product(tenantId: string, productId: string): Found | Promise<Found>;
    /** The latest values of these identifiers of the device, those it has. */
    latest(tenantId: string, deviceId: string, identifiers: readonly string[]): Promise<Record<string, unknown>>;
  };
  /** The running version of a chain of the tenant: what a rule-chain node calls. */
  chain(tenantId: string, chainId: string): Promise<RuleChainDefinition | null>;
  sleep(ms: number): Promise<void>;
  /** Where a Warehousing node stores a message; absent while the intake stores every message before the chain. */
  store?(message: RuleMessage): Promise<void>;
  /**
   * A notification of the tenant: in-app, or through configuration `configId` when set; `sourceKey` makes a message
   * run twice notify once.
   */
  notify(notification: {
    tenantId: string;
    sourceKey: string;
    deviceId: string;
    subject: string;
    body: string;
    configId?: string;
  }): Promise<void>;
  /**
   * A message for a forwarding server, into the forwarding outbox (`ruleId` names the chain's node); `messageId` goes
   * to the target, the same in every run of the message, to drop a repeat (a message run twice is sent twice).
   */
  forward(item: {
    tenantId: string;
    ruleId: string;
    serverId: string;
    deviceId: string;
    topic: string;
    payload: string;
    messageId: string;
  }): Promise<void>;
}

/** A device's or product's fields as a look-up answers them. */
type Found = Readonly<Record<string, unknown>> | null;

/** Ports that act on nothing: what a replay runs side-effect nodes with (they go out by Success, marked dry-run). */
export function dryRunPorts(lookups: RuleEnginePorts['lookups'], chain: RuleEnginePorts['chain']): RuleEnginePorts {
  return {
    lookups,
    chain,
    dispatch: async () => ({ position: null, id: 'dry-run' }),
    sleep: async () => undefined,
    store: async () => undefined,
    notify: async () => undefined,
    forward: async () => undefined,
  };
}

/** What one node did to one message. */
export interface NodeTrace {
  chainId: string;
  nodeId: string;
  kind: RuleNode['kind'];
  /** The labels it went out by. */
  labels: string[];
  /** The message as it entered the node. */
  input: RuleMessage;
  /** The message it passed on (as it entered, for a failure). */
  message: RuleMessage;
  error: string | null;
  /** A node that acts outside the chain, run by a replay: it did nothing. */
  dryRun: boolean;
  /** How long the node took. */
  ms: number;
}

export interface RuleFailure {
  chainId: string;
  nodeId: string;
  nodeName: string;
  kind: RuleNode['kind'];
  error: string;
  /** The message as it entered the node. */
  message: RuleMessage;
  /** The nodes the message went through, the failing one last (`chainId/nodeId` inside called chains). */
  path: string[];
}

export interface RunResult {
  /** What each node did: every node's by default, only the wanted ones' when `trace` says (the live chains). */
  traces: NodeTrace[];
  failures: RuleFailure[];
  /** The chains the message ran through: the one it entered first, then those rule-chain nodes called. */
  chains: string[];
}

/** A chain with many branches stops here rather than multiplying a message without end. */
export const MAX_NODE_RUNS = 1000;
/** Chains calling chains: deeper than this is a loop between chains. */
export const MAX_CHAIN_DEPTH = 8;

/** A failure of a node: its message is the error that is captured. */
class NodeError extends Error {}

type StepOut = { labels: string[]; message: RuleMessage };
/** A node's work on one message: answered at once by the nodes that wait for nothing (most), so they cost no promise. */
type Step = (message: RuleMessage, run: RunContext) => StepOut | Promise<StepOut>;
interface CompiledChain {
  chainId: string;
  chain: RuleChainDefinition;
  nodes: Map<string, RuleNode>;
  steps: Map<string, Step>;
  next: Map<string, RuleLink[]>;
}
interface RunContext {
  ports: RuleEnginePorts;
  depth: number;
  budget: { runs: number };
  result: RunResult;
  /** The path of the calling chains' nodes, for failures inside a called chain. */
  prefix: string[];
  dryRun: boolean;
  /** Which nodes' traces to keep: all when absent. */
  trace?: (chainId: string, nodeId: string) => boolean;
}

/** The nodes a message went through to reach a node, newest first: shared by the branches, listed only for a failure. */
type Path = { nodeId: string; up: Path | null } | null;
const pathOf = (path: Path): string[] => {
  const ids: string[] = [];
  for (let at = path; at; at = at.up) ids.push(at.nodeId);
  return ids.reverse();
};

/**
 * What an expression sees, one object for every evaluation: filled with the message's fields before and emptied after
 * (an evaluation is synchronous, so no two overlap), rather than a new object for each expression of each message.
 */
const scope: { msg: unknown; metadata: unknown; msgType: string; deviceId: string; productId: string; ts: string } = {
  msg: null,
  metadata: null,
  msgType: '',
  deviceId: '',
  productId: '',
  ts: '',
};

function evaluate(expression: CompiledExpression, m: RuleMessage): unknown {
  scope.msg = m.data;
  scope.metadata = m.metadata;
  scope.msgType = m.type;
  scope.deviceId = m.deviceId;
  scope.productId = m.productId ?? '';
  scope.ts = m.ts;
  try {
    return expression(scope);
  } catch (error) {
    throw new NodeError(`expression failed: ${(error as Error).message.split('\n')[0]}`);
  } finally {
    // Nothing of the message is held past its evaluation.
    scope.msg = null;
    scope.metadata = null;
  }
}
function evaluateBoolean(expression: CompiledExpression, message: RuleMessage): boolean {
  const value = evaluate(expression, message);
  if (typeof value !== 'boolean') throw new NodeError(`expression gave ${typeof value}, not a boolean`);
  return value;
}

/** The labels most nodes go out by: one array each, shared by every message (never changed). */
const SUCCESS = ['Success'];
const TRUE = ['True'];
const FALSE = ['False'];
const success = (message: RuleMessage) => ({ labels: SUCCESS, message });

/** The metadata of what a node dispatches: idempotent per message, chain and node, so a message run twice acts once. */
const dispatchMetadata = (message: RuleMessage, chainId: string, nodeId: string): DispatchMetadata => ({
  tenantId: message.tenantId,
  actor: { kind: 'system', id: 'rule-engine' },
  correlationId: message.id,
  causationId: null,
  idempotencyKey: `rule:${message.id}:${chainId}:${nodeId}`,
});

/** The alarm rule a createAlarm node raises under: one active alarm per device and node. */
export const chainAlarmRuleId = (chainId: string, nodeId: string) => `chain:${chainId}:${nodeId}`;

function stepOf(chainId: string, node: RuleNode, links: readonly RuleLink[]): Step {
  switch (node.kind) {
    case 'router': {
      const labels = new Set(links.map((l) => l.label));
      const { by } = node.config;
      return (message) => {
        const value = by === 'messageType' ? message.type : by === 'device' ? message.deviceId : (message.productId ?? '');
        return { labels: [labels.has(value) ? value : 'Other'], message };
      };
    }
    case 'switch': {
      const cases = node.config.cases.map((c) => ({ label: c.label, when: compileExpression(c.expression) }));
      return (message) => ({
        labels: [cases.find((c) => evaluateBoolean(c.when, message))?.label ?? 'Default'],
        message,
      });
    }
    case 'filter': {
      const expression = compileExpression(node.config.expression);
      return (message) => ({ labels: evaluateBoolean(expression, message) ? TRUE : FALSE, message });
    }
    case 'transform': {
      const set = node.config.set.map((s) => ({ field: s.field, value: compileExpression(s.expression) }));
      const { remove } = node.config;
      return (message) => {
        // One copy of the data: each field's expression sees the fields set before it.
        const out = { ...message, data: { ...message.data } };
        for (const { field, value } of set) out.data[field] = evaluate(value, out);
        for (const field of remove) delete out.data[field];
        return success(out);
      };
    }
    case 'enrich': {
      const { device, product, latest } = node.config;
      // Answered without a promise when the look-ups answer from their cache (the live chains' usual case).
      const withLatest = (message: RuleMessage, metadata: Record<string, unknown>, ports: RuleEnginePorts): StepOut | Promise<StepOut> =>
        latest.length === 0
          ? success({ ...message, metadata })
          : ports.lookups
              .latest(message.tenantId, message.deviceId, latest)
              .then((values) => success({ ...message, metadata: { ...metadata, latest: values } }));
      const withDevice = (message: RuleMessage, found: Found, ports: RuleEnginePorts) => {
        if (!found) throw new NodeError(`no device ${message.deviceId}`);
        const metadata: Record<string, unknown> = { ...message.metadata };
        if (device) metadata.device = found;
        if (!product) return withLatest(message, metadata, ports);
        const productId = message.productId ?? (typeof found.productId === 'string' ? found.productId : null);
        const productFound = productId ? ports.lookups.product(message.tenantId, productId) : null;
        // `metadata` is this message's own copy: the product goes into it rather than into a second copy.
        if (!(productFound instanceof Promise)) {
          metadata.product = productFound;
          return withLatest(message, metadata, ports);
        }
        return productFound.then((p) => {
          metadata.product = p;
          return withLatest(message, metadata, ports);
        });
      };
      return (message, { ports }) => {
        if (!device && !product) return withLatest(message, { ...message.metadata }, ports);
        const found = ports.lookups.device(message.tenantId, message.deviceId);
        return found instanceof Promise ? found.then((f) => withDevice(message, f, ports)) : withDevice(message, found, ports);
      };
    }
    case 'warehousing':
      return (message, { ports }) => {
        const stored = ports.store?.(message);
        return stored ? stored.then(() => success(message)) : success(message);
      };
    case 'createAlarm': {
      const { alarmName, level, variable, cause } = node.config;
      const text = node.config.text ? compileExpression(node.config.text) : null;
      return async (message, { ports }) => {
        const value = variable ? message.data[variable] : undefined;
        const result = await ports.dispatch(
          {
            type: 'RaiseAlarm',
            alarm: {
              ruleId: chainAlarmRuleId(chainId, node.id),
              ruleName: alarmName,
              deviceId: message.deviceId,
              variable,
              type: 'cloud',
              category: null,
              mode: null,
              level,
              trigger: 'first',
              threshold: null,
              value: typeof value === 'number' ? value : null,
              text: text ? String(evaluate(text, message)) : null,
              at: message.ts,
              faultFlag: false,
              cause,
              suggestion: null,
              push: 'firstTime',
              pushIntervalMin: null,
            },
          },
          dispatchMetadata(message, chainId, node.id),
        );
        return success({ ...message, metadata: { ...message.metadata, alarmId: result.id ?? null } });
      };
    }
    case 'clearAlarm': {
      const ruleId = chainAlarmRuleId(chainId, node.config.alarmNode);
      return async (message, { ports }) => {
        await ports.dispatch(
          { type: 'ClearRuleAlarm', deviceId: message.deviceId, ruleId, value: null, at: message.ts },
          dispatchMetadata(message, chainId, node.id),
        );
        return success(message);
      };
    }
    case 'command': {
      const { kind, identifier } = node.config;
      const params = node.config.params.map((p) => ({ name: p.name, value: compileExpression(p.expression) }));
      return async (message, { ports }) => {
        const values = Object.fromEntries(params.map((p) => [p.name, evaluate(p.value, message)]));
        await ports.dispatch(
          { type: 'SendDeviceCommand', deviceId: message.deviceId, kind, identifier, params: values },
          dispatchMetadata(message, chainId, node.id),
        );
        return success(message);
      };
    }
    case 'delay': {
      const { ms } = node.config;
      return async (message, { ports }) => {
        await ports.sleep(ms);
        return success(message);
      };
    }
    case 'ruleChain': {
      const target = node.config.chainId;
      return async (message, run) => {
        if (run.depth >= MAX_CHAIN_DEPTH) throw new NodeError(`chains call each other deeper than ${MAX_CHAIN_DEPTH}`);
        const chain = await run.ports.chain(message.tenantId, target);
        if (!chain) throw new NodeError(`no rule chain ${target}`);
        if (!run.result.chains.includes(target)) run.result.chains.push(target);
        await runCompiled(compileChain(target, chain), message, {
          ...run,
          depth: run.depth + 1,
          prefix: [...run.prefix, `${chainId}/${node.id}`],
        });
        return success(message);
      };
    }
    case 'notify': {
      const { subject, configId } = node.config;
      const content = compileExpression(node.config.content);
      return async (message, { ports }) => {
        const body = evaluate(content, message);
        await ports.notify({
          tenantId: message.tenantId,
          sourceKey: `rule:${message.id}:${chainId}:${node.id}`,
          deviceId: message.deviceId,
          subject,
          body: typeof body === 'string' ? body : JSON.stringify(body),
          ...(configId ? { configId } : {}),
        });
        return success(message);
      };
    }
    case 'forward': {
      const { serverId, topic, payloadTemplate } = node.config;
      const ruleId = `chain:${chainId}:${node.id}`;
      const topicOf = compileTopic(topic);
      const payloadOf = compilePayload(payloadTemplate);
      return async (message, { ports }) => {
        const forwarded = forwardMessageOf(message);
        await ports.forward({
          tenantId: message.tenantId,
          ruleId,
          serverId,
          deviceId: message.deviceId,
          topic: topicOf(forwarded),
          payload: payloadOf(forwarded),
          messageId: message.id,
        });
        return success(message);
      };
    }
  }
}

/** A chain's message as the forwarding templates see it: an event with its identifier and payload, else the data as values. */
function forwardMessageOf(message: RuleMessage): ForwardMessage {
  const base = { deviceId: message.deviceId, productId: message.productId ?? '', ts: new Date(message.ts) };
  if (message.type === 'event')
    return { ...base, type: 'event', identifier: String(message.data.identifier ?? ''), payload: message.data.payload };
  // Presence, alarm and attribute messages go out as their data, under their own type's name.
  const type = message.type as ForwardMessageType;
  return { ...base, type, values: message.data as Record<string, number | string | null> };
}

/** A node whose settings do not compile (a chain stored before a check it now fails) fails each message, alone. */
function safeStepOf(chainId: string, node: RuleNode, links: readonly RuleLink[]): Step {
  try {
    return stepOf(chainId, node, links);
  } catch (error) {
    const text = `node does not compile: ${(error as Error).message}`;
    return () => {
      throw new NodeError(text);
    };
  }
}

const compiled = new WeakMap<RuleChainDefinition, CompiledChain>();

/** A chain version ready to run: its expressions parsed once (kept as long as the version object lives). */
export function compileChain(chainId: string, chain: RuleChainDefinition): CompiledChain {
  const cached = compiled.get(chain);
  if (cached && cached.chainId === chainId) return cached;
  const next = new Map<string, RuleLink[]>();
  for (const link of chain.links) next.set(link.from, [...(next.get(link.from) ?? []), link]);
  const steps = new Map(chain.nodes.map((node) => [node.id, safeStepOf(chainId, node, next.get(node.id) ?? [])]));
  const ready = { chainId, chain, nodes: new Map(chain.nodes.map((n) => [n.id, n])), steps, next };
  compiled.set(chain, ready);
  return ready;
}

async function runCompiled(target: CompiledChain, entry: RuleMessage, run: RunContext): Promise<void> {
  const { nodes } = target;
  const queue: Array<{ nodeId: string; message: RuleMessage; path: Path }> = [
    { nodeId: target.chain.firstNodeId, message: entry, path: null },
  ];
  for (let at = 0; at < queue.length; at++) {
    const { nodeId, message, path } = queue[at]!;
    const node = nodes.get(nodeId);
    const step = target.steps.get(nodeId);
    if (!node || !step) continue;
    const here: Path = { nodeId, up: path };
    if (--run.budget.runs < 0) {
      capture(run, target, node, message, here, `more than ${MAX_NODE_RUNS} node runs for one message`, 0);
      return;
    }
    let labels: string[];
    let out = message;
    const traced = !run.trace || run.trace(target.chainId, nodeId);
    const started = traced ? performance.now() : 0;
    try {
      const answer = step(message, run);
      ({ labels, message: out } = answer instanceof Promise ? await answer : answer);
      if (traced)
        run.result.traces.push({
          chainId: target.chainId,
          nodeId,
          kind: node.kind,
          labels,
          input: message,
          message: out,
          error: null,
          dryRun: run.dryRun && sideEffectKinds.has(node.kind),
          ms: performance.now() - started,
        });
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      capture(run, target, node, message, here, text, traced ? performance.now() - started : 0);
      labels = ['Failure'];
    }
    for (const link of target.next.get(nodeId) ?? []) {
      if (labels.includes(link.label)) queue.push({ nodeId: link.to, message: out, path: here });
    }
  }
}

function capture(run: RunContext, target: CompiledChain, node: RuleNode, message: RuleMessage, path: Path, error: string, ms: number) {
  run.result.traces.push({
    chainId: target.chainId,
    nodeId: node.id,
    kind: node.kind,
    labels: ['Failure'],
    input: message,
    message,
    error,
    dryRun: run.dryRun && sideEffectKinds.has(node.kind),
    ms,
  });
  run.result.failures.push({
    chainId: target.chainId,
    nodeId: node.id,
    nodeName: node.name,
    kind: node.kind,
    error,
    message,
    path: [...run.prefix, ...pathOf(path).map((id) => (run.prefix.length > 0 ? `${target.chainId}/${id}` : id))],
  });
}

/**
 * Runs one message through a chain version; never throws for what a node does. `dryRun` marks the traces of a replay;
 * `trace` keeps only the traces of the nodes it names (a failure is always traced).
 */
export async function runChain(
  ports: RuleEnginePorts,
  chainId: string,
  chain: RuleChainDefinition,
  message: RuleMessage,
  options: { dryRun?: boolean; trace?: (chainId: string, nodeId: string) => boolean } = {},
): Promise<RunResult> {
  const result: RunResult = { traces: [], failures: [], chains: [chainId] };
  await runCompiled(compileChain(chainId, chain), message, {
    ports,
    depth: 0,
    budget: { runs: MAX_NODE_RUNS },
    result,
    prefix: [],
    dryRun: options.dryRun ?? false,
    ...(options.trace ? { trace: options.trace } : {}),
  });
  return result;
}
