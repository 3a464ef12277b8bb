import { z } from 'zod';
import { identifier } from '../device/thing-model.ts';
import { entityId, optionalText } from '../identity/common.ts';

/**
 * A configuration diagram (组态, spec §2 operation center → scene): device widgets placed on a background, each bound
 * to a device and one of its properties, showing the property's live value.
 */
export const widgetKinds = ['value', 'lamp', 'gauge', 'text'] as const;
export type WidgetKind = (typeof widgetKinds)[number];
export const DIAGRAM_WIDGET_LIMIT = 200;
const coordinate = z.number().finite().min(-10_000).max(10_000);
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
    /** The value at which a lamp is lit (any non-zero value when null). */
    onValue: z
      .number()
      .finite()
      .nullish()
      .transform((v) => v ?? null),
  })
  .strict()
  .refine((w) => (w.deviceId === null) === (w.property === null), { message: 'device and property go together', path: ['property'] })
  .refine((w) => w.min === null || w.max === null || w.min < w.max, { message: 'minimum below maximum', path: ['max'] });
export type DiagramWidget = z.output<typeof diagramWidget>;

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
  })
  .strict();
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
    }),
  ),
  createTime: z.string(),
  updateTime: z.string(),
});
export type DiagramRow = z.infer<typeof diagramRow>;
export const diagramSortable = ['createTime', 'name'] as const;
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
