import { z } from 'zod';
import { identifier } from '../device/thing-model.ts';
import { entityId, optionalText } from '../identity/common.ts';

/**
 * A configuration diagram (组态, spec §2 operation center → scene): widgets placed on a background, each bound
 * to a device and one of its properties (showing its live value) or to a command (a switch sending a thing-model
 * service or a writable property), joined by edges drawn with the canvas settings of §9.
 */
export const widgetKinds = [
  'value',
  'lamp',
  'gauge',
  'text',
  'pump',
  'valve',
  'tank',
  'meter',
  'pipe',
  'switch',
  'image',
  'element',
] as const;
export type WidgetKind = (typeof widgetKinds)[number];
export const DIAGRAM_WIDGET_LIMIT = 200;
export const DIAGRAM_EDGE_LIMIT = 400;
export const WIDGET_THRESHOLD_LIMIT = 8;
const coordinate = z.number().finite().min(-10_000).max(10_000);
const colour = z.string().regex(/^#[0-9A-Fa-f]{6}$/);
const optionalNumber = z
  .number()
  .finite()
  .nullish()
  .transform((v) => v ?? null);
const optionalSize = z
  .number()
  .int()
  .min(8)
  .max(2000)
  .nullish()
  .transform((v) => v ?? null);
/** From `value` up (to the next threshold), the widget is drawn in `color`. */
export const widgetThreshold = z.object({ value: z.number().finite(), color: colour }).strict();
/** What a switch sends: a thing-model service (its one input, if any, carries the value) or a writable property. */
export const widgetCommand = z.object({ kind: z.enum(['service', 'property']), identifier }).strict();
export type WidgetCommand = z.output<typeof widgetCommand>;
export const diagramWidget = z
  .object({
    /** The widget's id in the diagram (the editor makes it). */
    id: z.string().trim().min(1).max(40),
    kind: z.enum(widgetKinds),
    x: coordinate,
    y: coordinate,
    label: z.string().trim().max(64).default(''),
    deviceId: entityId.nullish().transform((v) => v ?? null),
    property: identifier.nullish().transform((v) => v ?? null),
    /** A gauge's range. */
    min: z
      .number()
      .finite()
      .nullish()
      .transform((v) => v ?? null),
    max: z
      .number()
      .finite()
      .nullish()
      .transform((v) => v ?? null),
    /** The value at which a lamp is lit, a pump runs, a valve is open, a pipe flows, a switch is on (any non-zero value when null). */
    onValue: optionalNumber,
    /** The value a switch sends to turn off (0 when null). */
    offValue: optionalNumber,
    /** The size on the canvas (the kind's or the topo element's default when null). */
    width: optionalSize,
    height: optionalSize,
    /** The tenant's topo element an `element` widget draws. */
    elementId: entityId.nullish().transform((v) => v ?? null),
    /** The uploaded file an `image` widget draws. */
    fileId: entityId.nullish().transform((v) => v ?? null),
    thresholds: z.array(widgetThreshold).max(WIDGET_THRESHOLD_LIMIT).default([]),
    /** A switch's command, sent to the bound device after a confirm. */
    command: widgetCommand.nullish().transform((v) => v ?? null),
  })
  .strict()
  .refine((w) => (w.deviceId === null) === (w.property === null && w.command === null), {
    message: 'a device goes with a property or a command',
    path: ['property'],
  })
  .refine((w) => w.command === null || w.kind === 'switch', { message: 'only a switch sends a command', path: ['command'] })
  .refine((w) => w.kind !== 'element' || w.elementId !== null, { message: 'an element widget names its topo element', path: ['elementId'] })
  .refine((w) => w.min === null || w.max === null || w.min < w.max, { message: 'minimum below maximum', path: ['max'] });
export type DiagramWidget = z.output<typeof diagramWidget>;

export const diagramEdge = z
  .object({ id: z.string().trim().min(1).max(40), source: z.string().min(1).max(40), target: z.string().min(1).max(40) })
  .strict();
export type DiagramEdge = z.output<typeof diagramEdge>;

/** The canvas defaults of spec §9: curved lines, triangle arrows, scale 1, unlocked. */
export const diagramCanvasDefaults = { lineStyle: 'curve', arrow: 'triangle', scale: 1, locked: false } as const;
export const diagramCanvas = z
  .object({
    lineStyle: z.enum(['curve', 'straight', 'step']).default(diagramCanvasDefaults.lineStyle),
    arrow: z.enum(['triangle', 'none']).default(diagramCanvasDefaults.arrow),
    scale: z.number().min(0.2).max(4).default(diagramCanvasDefaults.scale),
    /** A locked canvas keeps its widgets where they are in the editor. */
    locked: z.boolean().default(diagramCanvasDefaults.locked),
  })
  .strict();
export type DiagramCanvas = z.output<typeof diagramCanvas>;

export const diagramFields = z
  .object({
    name: z.string().trim().min(1).max(64),
    remark: optionalText(256),
    /** The canvas colour, #RRGGBB. */
    background: z
      .string()
      .regex(/^#[0-9A-Fa-f]{6}$/)
      .default('#0B1A3A'),
    widgets: z
      .array(diagramWidget)
      .max(DIAGRAM_WIDGET_LIMIT)
      .default([])
      .refine((ws) => new Set(ws.map((w) => w.id)).size === ws.length, 'widget ids are unique'),
    edges: z.array(diagramEdge).max(DIAGRAM_EDGE_LIMIT).default([]),
    canvas: diagramCanvas.default({ ...diagramCanvasDefaults }),
  })
  .strict()
  .refine((d) => d.edges.every((e) => d.widgets.some((w) => w.id === e.source) && d.widgets.some((w) => w.id === e.target)), {
    message: 'an edge joins two widgets of the diagram',
    path: ['edges'],
  });
export type DiagramFields = z.output<typeof diagramFields>;
export const diagramCreateBody = diagramFields;
export const diagramUpdateBody = diagramFields.safeExtend({ id: entityId });

export const diagramRow = z.object({
  id: z.string(),
  name: z.string(),
  remark: z.string().nullable(),
  background: z.string(),
  widgets: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(widgetKinds),
      x: z.number(),
      y: z.number(),
      label: z.string(),
      deviceId: z.string().nullable(),
      property: z.string().nullable(),
      min: z.number().nullable(),
      max: z.number().nullable(),
      onValue: z.number().nullable(),
      offValue: z.number().nullable(),
      width: z.number().nullable(),
      height: z.number().nullable(),
      elementId: z.string().nullable(),
      fileId: z.string().nullable(),
      thresholds: z.array(z.object({ value: z.number(), color: z.string() })),
      command: z.object({ kind: z.enum(['service', 'property']), identifier: z.string() }).nullable(),
    }),
  ),
  edges: z.array(z.object({ id: z.string(), source: z.string(), target: z.string() })),
  canvas: z.object({
    lineStyle: z.enum(['curve', 'straight', 'step']),
    arrow: z.enum(['triangle', 'none']),
    scale: z.number(),
    locked: z.boolean(),
  }),
  createTime: z.string(),
  updateTime: z.string(),
});
export type DiagramRow = z.infer<typeof diagramRow>;
export const diagramSortable = ['createTime', 'updateTime', 'name'] as const;
export const diagramFilters = { name: z.string().trim().max(64).optional() };

/** The newest value of each bound (device, property) of a diagram. */
export const diagramValue = z.object({
  deviceId: z.string(),
  property: z.string(),
  value: z.number().nullable(),
  text: z.string().nullable(),
  display: z.string(),
  ts: z.string(),
});
export type DiagramValue = z.infer<typeof diagramValue>;
