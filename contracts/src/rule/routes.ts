import { z } from 'zod';
import { listQuery, page } from '../envelope.ts';
import { route } from '../http/route.ts';
import { entityId, idList } from '../identity/common.ts';
import { bulkResult } from '../device/model.ts';
import {
  chainSaveBody,
  chainVersion,
  chainVersionBody,
  nodeDebugBody,
  nodeDebugRow,
  nodeTraceRow,
  replayBody,
  replayResult,
  ruleFailureRow,
  ruleChainDefinition,
  ruleChainDetail,
  ruleChainFile,
  ruleChainRow,
  ruleChainSortable,
  ruleChainVersionRow,
} from './model.ts';
import { rulePerm as p } from './permissions.ts';

const chainResult = z.object({ id: z.string(), version: z.number().int() });

/** The rule chain library (spec §2 "Rule chain library", issue 19): chains, their versions, export and JSON upload. */
export const ruleRoutes = {
  'ruleChain.list': route({
    method: 'GET',
    path: '/api/iot/ruleEngine/chain',
    permission: p.chainList,
    tag: 'ruleChain',
    summary: "The tenant's rule chains, the root chain among them, with their latest and running versions",
    query: listQuery(ruleChainSortable, {
      name: z.string().trim().max(64).optional(),
      root: z
        .enum(['true', 'false'])
        .transform((v) => v === 'true')
        .optional(),
    }),
    response: page(ruleChainRow),
    reads: ['ruleChains'],
  }),
  'ruleChain.detail': route({
    method: 'GET',
    path: '/api/iot/ruleEngine/chain/detail',
    permission: p.chainList,
    tag: 'ruleChain',
    summary: 'A chain with its nodes and links: the running version, or the version asked for',
    query: z.object({ id: entityId, version: chainVersion.optional() }).strict(),
    response: ruleChainDetail,
    reads: ['ruleChains'],
    errors: ['NOT_FOUND'],
  }),
  'ruleChain.create': route({
    method: 'POST',
    path: '/api/iot/ruleEngine/chain',
    permission: p.chainAdd,
    tag: 'ruleChain',
    summary: 'Create a rule chain (version 1, running); every fault of the chain is named by its path',
    body: z.object({ chain: ruleChainDefinition }).strict(),
    response: chainResult,
    reads: ['ruleChains'],
  }),
  'ruleChain.update': route({
    method: 'PUT',
    path: '/api/iot/ruleEngine/chain',
    permission: p.chainEdit,
    tag: 'ruleChain',
    summary:
      'Save a chain as a new version, run at once unless run is false; a save over a version later than baseVersion is refused (CONFLICT)',
    body: chainSaveBody,
    response: chainResult,
    reads: ['ruleChains'],
    errors: ['NOT_FOUND', 'CONFLICT'],
  }),
  'ruleChain.delete': route({
    method: 'DELETE',
    path: '/api/iot/ruleEngine/chain',
    permission: p.chainDelete,
    tag: 'ruleChain',
    summary: 'Delete rule chains (never the root chain); a result per chain',
    query: z.object({ ids: idList }).strict(),
    response: bulkResult,
    reads: ['ruleChains'],
  }),
  'ruleChain.versions': route({
    method: 'GET',
    path: '/api/iot/ruleEngine/chain/version',
    permission: p.chainList,
    tag: 'ruleChain',
    summary: "A chain's versions, newest first: which one runs, which one a version restored, who saved it",
    query: listQuery(['version'] as const, { id: entityId }),
    response: page(ruleChainVersionRow),
    reads: ['ruleChains'],
    errors: ['NOT_FOUND'],
  }),
  'ruleChain.restore': route({
    method: 'POST',
    path: '/api/iot/ruleEngine/chain/restore',
    permission: p.chainEdit,
    tag: 'ruleChain',
    summary: 'Restore a version: saved again as the newest version, and run',
    body: chainVersionBody,
    response: chainResult,
    reads: ['ruleChains'],
    errors: ['NOT_FOUND'],
  }),
  'ruleChain.run': route({
    method: 'POST',
    path: '/api/iot/ruleEngine/chain/run',
    permission: p.chainRun,
    tag: 'ruleChain',
    summary: 'Switch the running version of a chain, without a restart: the next message goes through it',
    body: chainVersionBody,
    response: chainResult,
    reads: ['ruleChains'],
    errors: ['NOT_FOUND'],
  }),
  'ruleChain.export': route({
    method: 'GET',
    path: '/api/iot/ruleEngine/chain/export',
    permission: p.chainExport,
    tag: 'ruleChain',
    summary: 'A chain (its running version, or the version asked for) as a JSON file that the upload takes back',
    query: z.object({ id: entityId, version: chainVersion.optional() }).strict(),
    produces: 'application/json',
    response: ruleChainFile,
    reads: ['ruleChains'],
    errors: ['NOT_FOUND'],
  }),
  'ruleChain.import': route({
    method: 'POST',
    path: '/api/iot/ruleEngine/chain/import',
    permission: p.chainImport,
    tag: 'ruleChain',
    summary: 'Upload an exported chain (a JSON file) as a new chain; every fault of the file is named by its path',
    body: ruleChainFile,
    response: chainResult,
    reads: ['ruleChains'],
  }),

  // The editor's debug panel (issue 19 "Observability"): failures, per-node debug traces, replay.
  'ruleChain.failures': route({
    method: 'GET',
    path: '/api/iot/ruleEngine/chain/failure',
    permission: p.editorList,
    tag: 'ruleChain',
    summary: "Node failures of the tenant's chains, newest first: the message as it entered, the node, the error and the path it took",
    query: listQuery(['createTime'] as const, {
      chainId: z.string().trim().max(64).optional(),
      nodeId: z.string().trim().max(40).optional(),
    }),
    response: page(ruleFailureRow),
    reads: [],
  }),
  'ruleChain.debug': route({
    method: 'GET',
    path: '/api/iot/ruleEngine/chain/debug',
    permission: p.editorList,
    tag: 'ruleChain',
    summary: 'The nodes of a chain whose debug traces are on, or were: until when, and for which share of the messages',
    query: z.object({ id: entityId }).strict(),
    response: z.array(nodeDebugRow),
    reads: ['ruleDebug'],
    errors: ['NOT_FOUND'],
  }),
  'ruleChain.setDebug': route({
    method: 'PUT',
    path: '/api/iot/ruleEngine/chain/debug',
    permission: p.editorDebug,
    tag: 'ruleChain',
    summary: "Switch a node's debug traces on for some minutes (at most 60) and a sample rate, or off (0 minutes)",
    body: nodeDebugBody,
    response: nodeDebugRow,
    reads: ['ruleDebug'],
    errors: ['NOT_FOUND'],
  }),
  'ruleChain.traces': route({
    method: 'GET',
    path: '/api/iot/ruleEngine/chain/trace',
    permission: p.editorList,
    tag: 'ruleChain',
    summary: "A node's last traced messages, newest first: what entered, what left, by which links",
    query: z
      .object({ id: entityId, nodeId: z.string().trim().min(1).max(40), limit: z.coerce.number().int().min(1).max(100).default(20) })
      .strict(),
    response: z.array(nodeTraceRow),
    reads: [],
    errors: ['NOT_FOUND'],
  }),
  'ruleChain.replay': route({
    method: 'POST',
    path: '/api/iot/ruleEngine/chain/replay',
    permission: p.editorReplay,
    tag: 'ruleChain',
    summary:
      "Run a captured failure's message, or a message given, through a chain version and answer each node's output; nodes that act outside the chain run dry",
    body: replayBody,
    response: replayResult,
    reads: [],
    errors: ['NOT_FOUND'],
  }),
};
export type RuleRoutes = typeof ruleRoutes;
