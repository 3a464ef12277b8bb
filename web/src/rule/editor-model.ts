import { z } from 'zod';
import { nodeConfigs, outputLabels, ruleChainDefinition, type RuleChainDefinition, type RuleNode, type RuleNodeKind } from '@iot/contracts';

/** A chain as the editor holds it: nodes whose config is being typed may not pass their schema yet. */
export interface EditorNode {
  id: string;
  name: string;
  kind: RuleNodeKind;
  config: Record<string, unknown>;
  position: { x: number; y: number };
}
export interface EditorChain {
  name: string;
  description: string | null;
  firstNodeId: string;
  nodes: EditorNode[];
  links: Array<{ from: string; to: string; label: string }>;
}

/** A fault of the chain as the editor shows it: what is wrong, and the node it is about, if one. */
export interface ChainFault {
  nodeId: string | null;
  key: string;
  values?: Record<string, string>;
}

/** A new node's settings: the defaults of its schema, and a first value where the schema wants one. */
export function defaultConfig(kind: RuleNodeKind): Record<string, unknown> {
  const starts: Partial<Record<RuleNodeKind, Record<string, unknown>>> = {
    router: { by: 'messageType' },
    switch: { cases: [{ label: 'case1', expression: 'true' }] },
    filter: { expression: 'true' },
    createAlarm: { alarmName: 'Alarm', level: 3 },
    clearAlarm: { alarmNode: '' },
    command: { kind: 'property', identifier: '' },
    delay: { ms: 1000 },
    ruleChain: { chainId: '' },
    notify: { subject: 'Notice', content: "'message from the rule chain'" },
    forward: { serverId: '' },
  };
  return { ...(starts[kind] ?? {}) };
}

/** The labels a node may link by, `Failure` last; a router's are its values (typed in), so it offers `Other`. */
export function labelsOf(node: EditorNode): string[] {
  const parsed = nodeConfigs[node.kind].safeParse(node.config);
  if (node.kind === 'router') return ['Other', 'Failure'];
  if (!parsed.success) return node.kind === 'filter' ? ['True', 'False', 'Failure'] : ['Success', 'Failure'];
  const labels = outputLabels({ ...node, config: parsed.data } as RuleNode) ?? [];
  return [...labels, 'Failure'];
}

/** The labels whose link a node needs: a filter or switch that links nowhere drops every message. */
function requiredOut(node: EditorNode): boolean {
  return node.kind === 'filter' || node.kind === 'switch' || node.kind === 'router';
}

/**
 * Every fault before a save, each readable: a node's settings, a cycle, a link by a label the node cannot give, a
 * node no message reaches, a filter, switch or router linking nowhere. Null when the chain is ready to save.
 */
export function faultsOf(chain: EditorChain): { faults: ChainFault[]; chain: RuleChainDefinition | null } {
  const faults: ChainFault[] = [];
  const byId = new Map(chain.nodes.map((n) => [n.id, n]));
  for (const node of chain.nodes) {
    const parsed = nodeConfigs[node.kind].safeParse(node.config);
    if (!parsed.success)
      for (const issue of parsed.error.issues)
        faults.push({
          nodeId: node.id,
          key: 'editor.faultConfig',
          values: { node: node.name, field: issue.path.join('.') || '-', message: issue.message },
        });
    if (requiredOut(node) && !chain.links.some((l) => l.from === node.id && l.label !== 'Failure'))
      faults.push({ nodeId: node.id, key: 'editor.faultDangling', values: { node: node.name } });
  }
  if (chain.nodes.length > 0 && byId.has(chain.firstNodeId)) {
    const reached = new Set([chain.firstNodeId]);
    const queue = [chain.firstNodeId];
    while (queue.length > 0) {
      const id = queue.shift()!;
      for (const l of chain.links)
        if (l.from === id && !reached.has(l.to)) {
          reached.add(l.to);
          queue.push(l.to);
        }
    }
    for (const node of chain.nodes)
      if (!reached.has(node.id)) faults.push({ nodeId: node.id, key: 'editor.faultUnreached', values: { node: node.name } });
  }
  if (chain.nodes.length === 0) faults.push({ nodeId: null, key: 'editor.faultEmpty' });
  const whole = ruleChainDefinition.safeParse(chain);
  if (!whole.success && faults.length === 0) {
    for (const issue of whole.error.issues) {
      const [part, index] = issue.path;
      const link = part === 'links' && typeof index === 'number' ? chain.links[index] : undefined;
      const cycle = issue.message.startsWith('a cycle: ');
      if (cycle) {
        const names = issue.message
          .slice('a cycle: '.length)
          .split(' → ')
          .map((id) => byId.get(id)?.name ?? id);
        faults.push({ nodeId: link?.from ?? null, key: 'editor.faultCycle', values: { path: names.join(' → ') } });
      } else if (link) {
        const from = byId.get(link.from)?.name ?? link.from;
        const to = byId.get(link.to)?.name ?? link.to;
        faults.push({ nodeId: link.from, key: 'editor.faultLink', values: { from, to, message: issue.message } });
      } else faults.push({ nodeId: null, key: 'editor.faultOther', values: { field: issue.path.join('.'), message: issue.message } });
    }
  }
  return { faults, chain: faults.length === 0 && whole.success ? whole.data : null };
}

// ---------------------------------------------------------------- forms generated from the node schemas

export type FieldKind =
  | { type: 'text'; optional: boolean }
  | { type: 'number'; optional: boolean }
  | { type: 'boolean' }
  | { type: 'enum'; options: string[] }
  | { type: 'json' };

/** What input a field of a node's schema takes: its wrappers (optional, nullable, default, transform) looked through. */
export function fieldKind(schema: z.ZodType): FieldKind {
  let s: z.ZodType = schema;
  let optional = false;
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) {
      optional = true;
      s = s.unwrap() as z.ZodType;
    } else if (s instanceof z.ZodPipe) s = s.in as z.ZodType;
    else break;
  }
  if (s instanceof z.ZodString) return { type: 'text', optional };
  if (s instanceof z.ZodNumber) return { type: 'number', optional };
  if (s instanceof z.ZodBoolean) return { type: 'boolean' };
  if (s instanceof z.ZodEnum) return { type: 'enum', options: s.options.map(String) };
  return { type: 'json' };
}

/** The fields of a node kind's settings, in the schema's order. */
export function fieldsOf(kind: RuleNodeKind): Array<{ name: string; kind: FieldKind }> {
  const shape: Record<string, z.ZodType> = nodeConfigs[kind].shape;
  return Object.entries(shape).map(([name, schema]) => ({ name, kind: fieldKind(schema) }));
}
