import { z } from 'zod';
import { entityId, optionalText } from '../identity/common.ts';
import { identifier } from '../device/thing-model.ts';
import { forwardTopic, payloadTemplate } from '../forward/model.ts';
import { expressionFault } from './expression.ts';

// ---------------------------------------------------------------- messages

/** What reaches a tenant's root chain: every telemetry message, attribute change, device event, presence change and alarm. */
export const ruleMessageTypes = ['telemetry', 'attributes', 'event', 'presence', 'alarm'] as const;
export type RuleMessageType = (typeof ruleMessageTypes)[number];

/** A message as it travels a chain: its data (the values) and metadata (what nodes learned of it on the way). */
export type RuleMessage = {
  id: string;
  type: RuleMessageType;
  tenantId: string;
  deviceId: string;
  productId: string | null;
  /** When it was measured or happened, ISO 8601. */
  ts: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
};

// ---------------------------------------------------------------- nodes

/** A CEL expression over `msg` (the data), `metadata`, `msgType`, `deviceId`, `productId` and `ts`; checked when saved. */
export const celExpression = z
  .string()
  .trim()
  .min(1)
  .superRefine((source, ctx) => {
    const fault = expressionFault(source);
    if (fault) ctx.addIssue({ code: 'custom', message: `invalid expression: ${fault}` });
  });

const label = z.string().trim().min(1).max(40);
const fieldName = z
  .string()
  .trim()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a field name: letters, digits and _');

export const routerBy = ['messageType', 'device', 'product'] as const;

/** Each node kind's settings: the editor's forms are generated from these. */
export const nodeConfigs = {
  /** Routes by message type, device or product: the link labelled with the value, else `Other`. */
  router: z.object({ by: z.enum(routerBy) }).strict(),
  /** Routes by expressions: the first case that holds names the link, else `Default`. */
  switch: z
    .object({
      cases: z
        .array(z.object({ label, expression: celExpression }).strict())
        .min(1)
        .max(20),
    })
    .strict(),
  /** `True` or `False`. */
  filter: z.object({ expression: celExpression }).strict(),
  /** Sets fields of the data from expressions (in order, each seeing the ones before), then removes fields. */
  transform: z
    .object({
      set: z
        .array(z.object({ field: fieldName, expression: celExpression }).strict())
        .max(50)
        .default([]),
      remove: z.array(fieldName).max(50).default([]),
    })
    .strict(),
  /** Adds the device's fields, its product and latest values to the metadata (`metadata.device`, `.product`, `.latest`). */
  enrich: z
    .object({
      device: z.boolean().default(true),
      product: z.boolean().default(false),
      latest: z.array(identifier).max(50).default([]),
    })
    .strict(),
  /** Stores the message in the time-series store (what the platform did before rule chains; the default root chain). */
  warehousing: z.object({}).strict(),
  /** Raises an alarm for the message's device: one active alarm per device and node. */
  createAlarm: z
    .object({
      alarmName: z.string().trim().min(1).max(64),
      level: z.number().int().min(1).max(5),
      variable: identifier.nullish().transform((v) => v ?? null),
      /** The alarm's text, computed from the message. */
      text: celExpression.nullish().transform((v) => v ?? null),
      cause: optionalText(200),
    })
    .strict(),
  /** Clears the alarm a createAlarm node of this chain raised for the message's device. */
  clearAlarm: z.object({ alarmNode: z.string().trim().min(1).max(40) }).strict(),
  /** Sends a command to the message's device: a property to set or a service to invoke, its parameters computed. */
  command: z
    .object({
      kind: z.enum(['property', 'service']),
      identifier,
      params: z
        .array(z.object({ name: identifier, expression: celExpression }).strict())
        .max(20)
        .default([]),
    })
    .strict(),
  /** Holds the message for a while before passing it on. */
  delay: z.object({ ms: z.number().int().min(1).max(60_000) }).strict(),
  /** Sends the message through another chain (its running version), then on by `Success`. */
  ruleChain: z.object({ chainId: entityId }).strict(),
  /**
   * Puts a message in the tenant's in-app inbox (the notification records), its text computed from the message; with a
   * notification configuration, sends it through that configuration's template, send ways and contacts instead (the
   * subject as `{{rule}}`, the computed text as `{{value}}`).
   */
  notify: z
    .object({
      subject: z.string().trim().min(1).max(128),
      /** The message's text: a CEL expression, e.g. `'temperature ' + string(msg.temp)`. */
      content: celExpression,
      configId: entityId.optional(),
    })
    .strict(),
  /** Forwards the message to a forwarding server (MQTT or HTTP) through the forwarding outbox: at least once, in order per device. */
  forward: z
    .object({
      serverId: entityId,
      topic: forwardTopic,
      /** The body: `{{values}}` is the message's data as JSON; none: the message as JSON. */
      payloadTemplate,
    })
    .strict(),
} as const;
export type RuleNodeKind = keyof typeof nodeConfigs;
export const ruleNodeKinds = Object.keys(nodeConfigs) as RuleNodeKind[];
export type NodeConfig<K extends RuleNodeKind> = z.output<(typeof nodeConfigs)[K]>;

/** The links a node may have besides `Failure` (every node has it), or null when its labels are its own values. */
export function outputLabels(node: RuleNode): readonly string[] | null {
  switch (node.kind) {
    case 'router':
      return null;
    case 'switch':
      return [...node.config.cases.map((c) => c.label), 'Default'];
    case 'filter':
      return ['True', 'False'];
    default:
      return ['Success'];
  }
}

export const nodeId = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]{1,40}$/, 'a node id: 1-40 letters, digits, - and _');
const position = z.object({ x: z.number().finite(), y: z.number().finite() }).strict();
const nodeBase = { id: nodeId, name: z.string().trim().min(1).max(64), position: position.optional() };

const nodeOf = <K extends RuleNodeKind>(kind: K) => z.object({ ...nodeBase, kind: z.literal(kind), config: nodeConfigs[kind] }).strict();
export const ruleNode = z.discriminatedUnion('kind', [
  nodeOf('router'),
  nodeOf('switch'),
  nodeOf('filter'),
  nodeOf('transform'),
  nodeOf('enrich'),
  nodeOf('warehousing'),
  nodeOf('createAlarm'),
  nodeOf('clearAlarm'),
  nodeOf('command'),
  nodeOf('delay'),
  nodeOf('ruleChain'),
  nodeOf('notify'),
  nodeOf('forward'),
]);

/** Nodes that act outside the chain (store, alarm, command, notify, forward, wait): a replay runs them dry. */
export const sideEffectKinds: ReadonlySet<RuleNodeKind> = new Set([
  'warehousing',
  'createAlarm',
  'clearAlarm',
  'command',
  'delay',
  'notify',
  'forward',
]);
/** A node as stored: its kind's config. */
export type RuleNode = z.output<typeof ruleNode>;

export const ruleLink = z.object({ from: nodeId, to: nodeId, label }).strict();
export type RuleLink = z.infer<typeof ruleLink>;

export const RULE_CHAIN_MAX_NODES = 200;

/**
 * A chain: its nodes, the labelled links between them and the node a message enters by. Checked whole:
 * unique node ids, links between nodes of the chain with a label the node can give, no cycle (a message
 * never comes back to a node), each fault named by its path.
 */
export const ruleChainDefinition = z
  .object({
    name: z.string().trim().min(1).max(64),
    description: optionalText(500),
    firstNodeId: nodeId,
    nodes: z.array(ruleNode).min(1).max(RULE_CHAIN_MAX_NODES),
    links: z.array(ruleLink).max(1000).default([]),
  })
  .strict()
  .superRefine((chain, ctx) => {
    const { nodes } = chain;
    const byId = new Map<string, RuleNode>();
    nodes.forEach((node, i) => {
      if (byId.has(node.id)) ctx.addIssue({ code: 'custom', path: ['nodes', i, 'id'], message: 'duplicate node id' });
      byId.set(node.id, node);
    });
    if (!byId.has(chain.firstNodeId)) ctx.addIssue({ code: 'custom', path: ['firstNodeId'], message: 'no such node' });
    nodes.forEach((node, i) => {
      if (node.kind !== 'clearAlarm') return;
      if (byId.get(node.config.alarmNode)?.kind !== 'createAlarm')
        ctx.addIssue({ code: 'custom', path: ['nodes', i, 'config', 'alarmNode'], message: 'not a createAlarm node of this chain' });
    });
    const next = new Map<string, string[]>();
    const seen = new Set<string>();
    chain.links.forEach((link, i) => {
      const from = byId.get(link.from);
      if (!from) return ctx.addIssue({ code: 'custom', path: ['links', i, 'from'], message: 'no such node' });
      if (!byId.has(link.to)) return ctx.addIssue({ code: 'custom', path: ['links', i, 'to'], message: 'no such node' });
      const labels = outputLabels(from);
      if (link.label !== 'Failure' && labels && !labels.includes(link.label))
        return ctx.addIssue({
          code: 'custom',
          path: ['links', i, 'label'],
          message: `a ${from.kind} node links by ${[...labels, 'Failure'].join(', ')}`,
        });
      const key = `${link.from}\0${link.to}\0${link.label}`;
      if (seen.has(key)) return ctx.addIssue({ code: 'custom', path: ['links', i], message: 'duplicate link' });
      seen.add(key);
      next.set(link.from, [...(next.get(link.from) ?? []), link.to]);
    });
    const cycle = findCycle(
      nodes.map((n) => n.id),
      next,
    );
    if (cycle) {
      const i = chain.links.findIndex((l) => l.from === cycle[0] && l.to === cycle[1]);
      ctx.addIssue({ code: 'custom', path: ['links', Math.max(i, 0)], message: `a cycle: ${cycle.join(' → ')}` });
    }
  });
export type RuleChainDefinition = z.output<typeof ruleChainDefinition>;
export type RuleChainDefinitionIn = z.input<typeof ruleChainDefinition>;

/** A cycle of the graph as the ids along it (first repeated at the end), or null. */
function findCycle(ids: string[], next: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | null => {
    state.set(id, 'open');
    path.push(id);
    for (const to of next.get(id) ?? []) {
      if (state.get(to) === 'open') return [...path.slice(path.indexOf(to)), to];
      if (!state.has(to)) {
        const found = visit(to);
        if (found) return found;
      }
    }
    path.pop();
    state.set(id, 'done');
    return null;
  };
  for (const id of ids) {
    if (state.has(id)) continue;
    const found = visit(id);
    if (found) return found;
  }
  return null;
}

/** A new tenant's root chain, and the one a tenant that never edited its chain runs: store what arrives, as before. */
export const defaultRootChain: RuleChainDefinition = {
  name: 'Root Rule Chain',
  description: null,
  firstNodeId: 'warehousing',
  nodes: [{ id: 'warehousing', name: 'Warehousing', kind: 'warehousing', config: {}, position: { x: 240, y: 120 } }],
  links: [],
};
/** The id of every tenant's root chain. */
export const ROOT_CHAIN_ID = 'root';

/** A chain as exported to a JSON file and imported from one. */
export const RULE_CHAIN_FORMAT = 'iot-rule-chain';
export const ruleChainFile = z
  .object({ format: z.literal(RULE_CHAIN_FORMAT), formatVersion: z.literal(1), chain: ruleChainDefinition })
  .strict();
export type RuleChainFile = z.output<typeof ruleChainFile>;

// ---------------------------------------------------------------- the library's rows

export const ruleChainSortable = ['createTime', 'updateTime', 'name'] as const;
export const ruleChainRow = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  root: z.boolean(),
  latestVersion: z.number().int(),
  runningVersion: z.number().int(),
  nodeCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type RuleChainRow = z.infer<typeof ruleChainRow>;

export const ruleChainVersionRow = z.object({
  version: z.number().int(),
  name: z.string(),
  nodeCount: z.number().int(),
  /** The version this one restored, when it was made by a restore. */
  restoredFrom: z.number().int().nullable(),
  running: z.boolean(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
});
export type RuleChainVersionRow = z.infer<typeof ruleChainVersionRow>;

/** A stored chain as answered: checked when it was saved, so answered as it is. */
export const storedChain = z.object({
  name: z.string(),
  description: z.string().nullable(),
  firstNodeId: z.string(),
  nodes: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      kind: z.enum(ruleNodeKinds as [RuleNodeKind, ...RuleNodeKind[]]),
      config: z.record(z.string(), z.unknown()),
      position: z.object({ x: z.number(), y: z.number() }).optional(),
    }),
  ),
  links: z.array(z.object({ from: z.string(), to: z.string(), label: z.string() })),
});
export const ruleChainDetail = ruleChainRow.extend({ version: z.number().int(), chain: storedChain });

export const chainVersion = z.coerce.number().int().min(1).max(1_000_000);
export const chainSaveBody = z
  .object({
    id: entityId,
    chain: ruleChainDefinition,
    /** The version the editor started from: a save over a later one is refused (CONFLICT) rather than lost. */
    baseVersion: chainVersion.optional(),
    /** Run the new version at once (default), or keep the running one. */
    run: z.boolean().default(true),
  })
  .strict();
export const chainVersionBody = z.object({ id: entityId, version: chainVersion }).strict();

// ---------------------------------------------------------------- observability (issue 19): failures, debug traces, replay

/** How long a node's debug traces stay on at most: traces cost a write per message. */
export const NODE_DEBUG_MAX_MINUTES = 60;
export const nodeDebugBody = z
  .object({
    id: entityId,
    nodeId,
    /** Minutes from now; 0 switches it off. */
    minutes: z.number().int().min(0).max(NODE_DEBUG_MAX_MINUTES),
    /** The share of the node's messages traced, 0.01 to 1. */
    sampleRate: z.number().min(0.01).max(1).default(1),
  })
  .strict();
export const nodeDebugRow = z.object({ nodeId: z.string(), until: z.string(), sampleRate: z.number(), active: z.boolean() });
export type NodeDebugRow = z.infer<typeof nodeDebugRow>;

/** A message as it travels a chain, as answered and as a replay takes it (other fields dropped). */
export const ruleMessageFields = z.object({
  id: z.string().trim().min(1).max(64),
  type: z.enum(ruleMessageTypes),
  deviceId: z.string().trim().min(1).max(64),
  productId: z.string().max(64).nullable().default(null),
  ts: z.string().datetime({ offset: true }),
  data: z.record(z.string(), z.unknown()),
  metadata: z.record(z.string(), z.unknown()).default({}),
});
export const ruleMessage = ruleMessageFields.strict();

export const ruleFailureRow = z.object({
  id: z.string(),
  chainId: z.string(),
  nodeId: z.string(),
  nodeName: z.string(),
  kind: z.string(),
  error: z.string(),
  /** The message as it entered the node. */
  message: z.record(z.string(), z.unknown()),
  /** The nodes it went through, the failing one last (`chainId/nodeId` inside called chains). */
  path: z.array(z.string()),
  createdAt: z.string(),
});
export type RuleFailureRow = z.infer<typeof ruleFailureRow>;

export const nodeTraceRow = z.object({
  id: z.string(),
  chainId: z.string(),
  nodeId: z.string(),
  labels: z.array(z.string()),
  input: z.record(z.string(), z.unknown()),
  output: z.record(z.string(), z.unknown()),
  error: z.string().nullable(),
  createdAt: z.string(),
});
export type NodeTraceRow = z.infer<typeof nodeTraceRow>;

/** Replays a captured failure's message, or a message given, through a version of a chain (the running one unless asked). */
export const replayBody = z
  .object({
    id: entityId,
    version: chainVersion.optional(),
    failureId: z
      .string()
      .regex(/^\d{1,18}$/)
      .optional(),
    message: ruleMessage.optional(),
  })
  .strict()
  .refine((b) => (b.failureId === undefined) !== (b.message === undefined), { message: 'failureId or message, one of them' });

export const replayStep = z.object({
  chainId: z.string(),
  nodeId: z.string(),
  kind: z.string(),
  labels: z.array(z.string()),
  input: z.record(z.string(), z.unknown()),
  output: z.record(z.string(), z.unknown()),
  error: z.string().nullable(),
  /** A node that acts outside the chain (store, alarm, command, notify, forward, delay): not run. */
  dryRun: z.boolean(),
  ms: z.number(),
});
export const replayResult = z.object({ version: z.number().int(), steps: z.array(replayStep), failures: z.number().int() });
