import {
  DomainError,
  diagramCanvasDefaults,
  type DiagramRow,
  type DiagramRoutes,
  type DiagramValue,
  type TopoElementRow,
} from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { diagramById, diagramsPage, topoElementsPage, type DiagramRecord, type TopoElementRecord } from '@iot/projections/diagram/read.ts';
import { latestValuesOf } from '../telemetry/handlers.ts';

const widgetDefaults = {
  offValue: null,
  width: null,
  height: null,
  elementId: null,
  fileId: null,
  thresholds: [],
  command: null,
} satisfies Partial<DiagramRow['widgets'][number]>;

const toRow = (d: DiagramRecord): DiagramRow => ({
  id: d.id,
  name: d.name,
  remark: d.remark,
  background: d.background,
  // Widgets saved before the SCADA kinds lack their fields: the schema's defaults fill them.
  widgets: d.widgets.map((w) => ({ ...widgetDefaults, ...w })),
  edges: d.edges,
  canvas: d.canvas ?? { ...diagramCanvasDefaults },
  createTime: d.createdAt.toISOString(),
  updateTime: d.updatedAt.toISOString(),
});

async function diagramOf(ctx: RequestContext, id: string): Promise<DiagramRecord> {
  const diagram = await diagramById(ctx.ports.db, callerOf(ctx).tenantId, id);
  if (!diagram) throw new DomainError('NOT_FOUND');
  return diagram;
}

/** A device's newest values, or none when it is gone or outside the caller's station (its widgets then show no value). */
async function valuesOfDevice(ctx: RequestContext, deviceId: string) {
  try {
    return await latestValuesOf(ctx, deviceId);
  } catch (e) {
    if (e instanceof DomainError && e.code === 'NOT_FOUND') return [];
    throw e;
  }
}

/** Configuration diagrams and the live values of their widgets (issue 20). */
const elementRow = (e: TopoElementRecord): TopoElementRow => ({
  id: e.id,
  name: e.name,
  width: e.width,
  height: e.height,
  remark: e.remark,
  imageFileId: e.imageFileId,
  createTime: e.createdAt.toISOString(),
  updateTime: e.updatedAt.toISOString(),
});

export const diagramQueryHandlers: Pick<
  Handlers<DiagramRoutes>,
  'diagram.list' | 'diagram.detail' | 'diagram.values' | 'topoElement.list'
> = {
  async 'topoElement.list'({ query: q }, ctx) {
    const found = await topoElementsPage(ctx.ports.db, callerOf(ctx).tenantId, { name: q.name }, q);
    return { ...found, rows: found.rows.map(elementRow) };
  },

  async 'diagram.list'({ query: q }, ctx) {
    const found = await diagramsPage(ctx.ports.db, callerOf(ctx).tenantId, { name: q.name }, q);
    return { ...found, rows: found.rows.map(toRow) };
  },

  async 'diagram.detail'({ query }, ctx) {
    return toRow(await diagramOf(ctx, query.id));
  },

  async 'diagram.values'({ query }, ctx) {
    const diagram = await diagramOf(ctx, query.id);
    const bound = new Map<string, Set<string>>();
    for (const w of diagram.widgets) {
      if (w.deviceId && w.property) bound.set(w.deviceId, (bound.get(w.deviceId) ?? new Set()).add(w.property));
    }
    const values: DiagramValue[] = [];
    for (const [deviceId, properties] of bound) {
      for (const v of await valuesOfDevice(ctx, deviceId)) {
        if (properties.has(v.variable))
          values.push({ deviceId, property: v.variable, value: v.value, text: v.text, display: v.display, ts: v.ts });
      }
    }
    return values;
  },
};
