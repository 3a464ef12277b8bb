import { DomainError, type DiagramFields, type DiagramRoutes, type ThingFunction, type TopoElementFields } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { loadState, newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { deviceWithModel } from '../telemetry/handlers.ts';
import { moveClaim, releaseClaims, withClaim } from '../shared/claims.ts';
import { diagramDecider, diagramStream, type DiagramCommand } from './decide.ts';
import { topoElementNameClaim, topoElementNameScope } from './names.ts';
import { releasePlacements, withDeleting, withPlacements } from './placements.ts';
import { liveTopoElement, topoElementDecider, topoElementStream, type TopoElementCommand } from './topo-element.ts';

/**
 * Every device a widget is bound to is the caller's tenant's, and what the widget shows or sends is in the thing model
 * the device reports against: a property, or a switch's service or writable property. Placed topo elements and images
 * are the tenant's too.
 */
async function checkBindings(ctx: RequestContext, fields: DiagramFields) {
  const { tenantId } = callerOf(ctx);
  const wanted = [...new Set(fields.widgets.flatMap((w) => (w.deviceId ? [w.deviceId] : [])))];
  if (wanted.length > 0) {
    const found = new Set(await ctx.ports.lookups.devicesOfTenant(tenantId, wanted));
    if (wanted.some((id) => !found.has(id))) throw new DomainError('NOT_FOUND', { field: 'deviceId' });
  }
  const models = new Map<string, ThingFunction[]>();
  for (const id of wanted) models.set(id, (await deviceWithModel(ctx.ports, tenantId, id)).functions);
  for (const w of fields.widgets) {
    const functions = w.deviceId ? (models.get(w.deviceId) ?? []) : [];
    const refuse = (identifier: string) => {
      throw new DomainError('DIAGRAM_BINDING_INVALID', { field: 'widgets', widget: w.label || w.id, identifier });
    };
    if (w.property && !functions.some((f) => f.type === 'property' && f.identifier === w.property)) refuse(w.property);
    const c = w.command;
    if (
      c &&
      !functions.some(
        (f) => f.identifier === c.identifier && (c.kind === 'service' ? f.type === 'service' : f.type === 'property' && f.access === 'rw'),
      )
    )
      refuse(c.identifier);
  }
  for (const elementId of new Set(fields.widgets.flatMap((w) => (w.elementId ? [w.elementId] : [])))) {
    try {
      await topoElementOf(ctx, elementId);
    } catch {
      throw new DomainError('NOT_FOUND', { field: 'elementId' });
    }
  }
  for (const fileId of new Set(fields.widgets.flatMap((w) => (w.fileId ? [w.fileId] : [])))) {
    if (!(await ctx.ports.lookups.fileById(tenantId, fileId))) throw new DomainError('NOT_FOUND', { field: 'fileId' });
  }
}

const diagramCommand = (ctx: RequestContext, diagramId: string, command: DiagramCommand) =>
  runCommand(ctx, diagramDecider, diagramStream(callerOf(ctx).tenantId, diagramId), command);

/** Configuration diagrams of the operation center (issue 20). */
export const diagramHandlers: Pick<Handlers<DiagramRoutes>, 'diagram.create' | 'diagram.update' | 'diagram.delete'> = {
  async 'diagram.create'({ body }, ctx) {
    const diagramId = newAggregateId(commandContextOf(ctx));
    await withPlacements(ctx, diagramId, body, async () => {
      await checkBindings(ctx, body);
      await diagramCommand(ctx, diagramId, { type: 'CreateDiagram', diagramId, fields: body });
    });
    return { id: diagramId };
  },

  async 'diagram.update'({ body }, ctx) {
    const { id, ...fields } = body;
    await withPlacements(ctx, id, fields, async () => {
      await checkBindings(ctx, fields);
      await diagramCommand(ctx, id, { type: 'SaveDiagram', diagramId: id, fields });
    });
    return { id };
  },

  async 'diagram.delete'({ query }, ctx) {
    await diagramCommand(ctx, query.id, { type: 'DeleteDiagram', diagramId: query.id });
    await releasePlacements(ctx, query.id);
    return { id: query.id };
  },
};

/** A topo element's image is an uploaded file of the caller's tenant. */
async function checkImage(ctx: RequestContext, fields: TopoElementFields) {
  if (fields.imageFileId && !(await ctx.ports.lookups.fileById(callerOf(ctx).tenantId, fields.imageFileId)))
    throw new DomainError('NOT_FOUND', { field: 'imageFileId' });
}

/** A topo element of the caller's tenant, from its stream (NOT_FOUND when none or deleted): what a diagram places. */
export async function topoElementOf(ctx: RequestContext, elementId: string): Promise<TopoElementFields> {
  const { state } = await loadState(ctx.ports.store, topoElementDecider, topoElementStream(callerOf(ctx).tenantId, elementId));
  return liveTopoElement(state);
}

const topoElementCommand = (ctx: RequestContext, elementId: string, command: TopoElementCommand) =>
  runCommand(ctx, topoElementDecider, topoElementStream(callerOf(ctx).tenantId, elementId), command);

/**
 * Topo elements (spec §3): the tenant's own pieces of the diagram palette, each name once per tenant (a claim). An
 * element placed in a diagram is not deleted, nor placed while it is being deleted (placements.ts); a diagram saved
 * after the delete is refused, since it reads the element's own stream.
 */
export const topoElementHandlers: Pick<Handlers<DiagramRoutes>, 'topoElement.create' | 'topoElement.update' | 'topoElement.delete'> = {
  async 'topoElement.create'({ body }, ctx) {
    await checkImage(ctx, body);
    const elementId = newAggregateId(commandContextOf(ctx));
    await withClaim(ctx.ports.db, topoElementNameClaim(callerOf(ctx).tenantId, body.name, elementId), 'TOPO_ELEMENT_NAME_TAKEN', () =>
      topoElementCommand(ctx, elementId, { type: 'CreateTopoElement', elementId, fields: body }),
    );
    return { id: elementId };
  },

  async 'topoElement.update'({ body }, ctx) {
    const { id, ...fields } = body;
    await checkImage(ctx, fields);
    await moveClaim(ctx.ports.db, topoElementNameClaim(callerOf(ctx).tenantId, fields.name, id), 'TOPO_ELEMENT_NAME_TAKEN', () =>
      topoElementCommand(ctx, id, { type: 'UpdateTopoElement', elementId: id, fields }),
    );
    return { id };
  },

  async 'topoElement.delete'({ query }, ctx) {
    await withDeleting(ctx, query.id, (usedBy) =>
      topoElementCommand(ctx, query.id, { type: 'DeleteTopoElement', elementId: query.id, usedBy }),
    );
    await releaseClaims(ctx.ports.db, topoElementNameScope(callerOf(ctx).tenantId), query.id);
    return { id: query.id };
  },
};
