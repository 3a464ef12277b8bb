import { z } from 'zod';
import { listQuery, page } from '../envelope.ts';
import { route } from '../http/route.ts';
import { idBody } from '../identity/common.ts';
import { operationPerm as p } from '../operation/permissions.ts';
import { topoElementCreateBody, topoElementFilters, topoElementRow, topoElementSortable, topoElementUpdateBody } from './topo-element.ts';
import { diagramCreateBody, diagramFilters, diagramRow, diagramSortable, diagramUpdateBody, diagramValue } from './model.ts';

const idResult = z.object({ id: z.string() });
const tag = 'diagram';

/** Configuration diagrams (组态) of the operation center's scene screen (spec §2, issue 20). */
export const diagramRoutes = {
  'diagram.list': route({
    method: 'GET',
    path: '/api/iot/diagram',
    permission: p.sceneList,
    tag,
    summary: 'Configuration diagrams of the tenant, filtered by name',
    query: listQuery(diagramSortable, diagramFilters),
    response: page(diagramRow),
    reads: ['diagrams'],
  }),
  'diagram.detail': route({
    method: 'GET',
    path: '/api/iot/diagram/detail',
    permission: p.sceneList,
    tag,
    summary: 'One configuration diagram with its widgets',
    query: idBody,
    response: diagramRow,
    reads: ['diagrams'],
    errors: ['NOT_FOUND'],
  }),
  'diagram.values': route({
    method: 'GET',
    path: '/api/iot/diagram/values',
    permission: p.sceneList,
    tag,
    summary: "The newest value of every device property a diagram's widgets are bound to (devices in the caller's station)",
    query: idBody,
    response: z.array(diagramValue),
    reads: ['diagrams', 'devices'],
    errors: ['NOT_FOUND'],
  }),
  'diagram.create': route({
    method: 'POST',
    path: '/api/iot/diagram',
    permission: p.sceneAdd,
    tag,
    summary: 'Create a configuration diagram: its name, background and widgets bound to device properties',
    body: diagramCreateBody,
    response: idResult,
    reads: ['diagrams'],
    errors: ['NOT_FOUND', 'DIAGRAM_BINDING_INVALID'],
  }),
  'diagram.update': route({
    method: 'PUT',
    path: '/api/iot/diagram',
    permission: p.sceneEdit,
    tag,
    summary: 'Save a configuration diagram (its widgets replace the saved ones)',
    body: diagramUpdateBody,
    response: idResult,
    reads: ['diagrams'],
    errors: ['NOT_FOUND', 'DIAGRAM_BINDING_INVALID'],
  }),
  'diagram.delete': route({
    method: 'DELETE',
    path: '/api/iot/diagram',
    permission: p.sceneDelete,
    tag,
    summary: 'Delete a configuration diagram',
    query: idBody,
    response: idResult,
    reads: ['diagrams'],
    errors: ['NOT_FOUND'],
  }),
  'topoElement.list': route({
    method: 'GET',
    path: '/api/iot/topoElement',
    permission: p.sceneList,
    tag,
    summary: "The tenant's topo elements (name, default width and height, remark, image): the diagram palette's own pieces",
    query: listQuery(topoElementSortable, topoElementFilters),
    response: page(topoElementRow),
    reads: ['topoElements'],
  }),
  'topoElement.create': route({
    method: 'POST',
    path: '/api/iot/topoElement',
    permission: p.sceneElement,
    tag,
    summary: 'Create a topo element; its image, when given, is an uploaded file of the tenant',
    body: topoElementCreateBody,
    response: idResult,
    reads: ['topoElements'],
    errors: ['NOT_FOUND'],
  }),
  'topoElement.update': route({
    method: 'PUT',
    path: '/api/iot/topoElement',
    permission: p.sceneElement,
    tag,
    summary: 'Change a topo element (the diagrams placing it keep their own sizes)',
    body: topoElementUpdateBody,
    response: idResult,
    reads: ['topoElements'],
    errors: ['NOT_FOUND'],
  }),
  'topoElement.delete': route({
    method: 'DELETE',
    path: '/api/iot/topoElement',
    permission: p.sceneElement,
    tag,
    summary: 'Delete a topo element (diagrams placing it then show an empty box)',
    query: idBody,
    response: idResult,
    reads: ['topoElements'],
    errors: ['NOT_FOUND'],
  }),
};
export type DiagramRoutes = typeof diagramRoutes;
