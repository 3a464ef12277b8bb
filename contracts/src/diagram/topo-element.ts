import { z } from 'zod';
import type { DomainEvent } from '../event.ts';
import { entityId, optionalText } from '../identity/common.ts';

/**
 * A topo element (spec §3: name, default width and height, remark): a tenant's own piece for the configuration
 * diagrams' palette, beside the built-in SCADA elements; it may be drawn as an uploaded image (file management).
 */
const size = z.number().int().min(8).max(2000);
export const topoElementFields = z
  .object({
    name: z.string().trim().min(1).max(64),
    width: size,
    height: size,
    remark: optionalText(256),
    /** An uploaded file of the tenant drawn as the element; none: a box with its name. */
    imageFileId: entityId.nullish().transform((v) => v ?? null),
  })
  .strict();
export type TopoElementFields = z.output<typeof topoElementFields>;
export const topoElementCreateBody = topoElementFields;
export const topoElementUpdateBody = topoElementFields.safeExtend({ id: entityId });

export const topoElementRow = z.object({
  id: z.string(),
  name: z.string(),
  width: z.number(),
  height: z.number(),
  remark: z.string().nullable(),
  imageFileId: z.string().nullable(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type TopoElementRow = z.infer<typeof topoElementRow>;
export const topoElementSortable = ['createTime', 'updateTime', 'name'] as const;
export const topoElementFilters = { name: z.string().trim().max(64).optional() };

/** What can happen to a topo element: created, updated, deleted. Stream `topoElement-<tenant>.<id>`. */
export type TopoElementEvent =
  | DomainEvent<'TopoElementCreated', TopoElementFields & { elementId: string }>
  | DomainEvent<'TopoElementUpdated', TopoElementFields & { elementId: string }>
  | DomainEvent<'TopoElementDeleted', { elementId: string }>;
export type TopoElementEventType = TopoElementEvent['type'];

/** The built-in SCADA elements of the palette and their default size (width, height) on the canvas. */
export const builtinElements = {
  pump: [110, 110],
  valve: [90, 90],
  tank: [100, 150],
  meter: [130, 130],
  switch: [96, 72],
  pipe: [180, 44],
  label: [120, 40],
  image: [140, 100],
} as const satisfies Record<string, readonly [number, number]>;
export type BuiltinElement = keyof typeof builtinElements;
