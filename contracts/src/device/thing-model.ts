import { z } from 'zod';

/**
 * The thing model of a product (issue 10 "Functions"): properties, services and events, each named by an
 * identifier unique in the product. One namespace: a template variable names a property identifier.
 */
export const identifierPattern = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
export const identifier = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(identifierPattern, { message: 'identifier: a letter or _ then letters, digits or _' });

export const scalarTypes = ['int', 'long', 'float', 'double', 'bool', 'enum', 'text', 'date'] as const;
export const dataTypes = [...scalarTypes, 'struct', 'array'] as const;
export type DataTypeName = (typeof dataTypes)[number];

const finite = z.number().finite();
const enumValue = z
  .object({ value: z.union([z.number().int(), z.string().trim().min(1).max(64)]), label: z.string().trim().min(1).max(64) })
  .strict();

/** Data definition of one scalar value: range and step for numbers, values for enums, length for text. */
const scalarSpecShape = {
  type: z.enum(scalarTypes),
  min: finite.nullish(),
  max: finite.nullish(),
  step: finite.positive().nullish(),
  unit: z.string().trim().max(16).nullish(),
  enumValues: z.array(enumValue).max(256).nullish(),
  maxLength: z.number().int().min(1).max(65535).nullish(),
};

function checkScalar(
  spec: { type: string; min?: number | null; max?: number | null; enumValues?: unknown[] | null },
  ctx: z.RefinementCtx,
) {
  if (spec.min != null && spec.max != null && spec.min > spec.max)
    ctx.addIssue({ code: 'custom', path: ['max'], message: 'max must not be below min' });
  if (spec.type === 'enum' && !spec.enumValues?.length)
    ctx.addIssue({ code: 'custom', path: ['enumValues'], message: 'an enum needs its values' });
  if ((spec.type === 'int' || spec.type === 'long') && [spec.min, spec.max].some((v) => v != null && !Number.isInteger(v)))
    ctx.addIssue({ code: 'custom', path: ['min'], message: 'an integer range has integer bounds' });
}

export const scalarSpec = z.object(scalarSpecShape).strict().superRefine(checkScalar);
export type ScalarSpec = z.infer<typeof scalarSpec>;

/** A field of a struct: itself a scalar. */
export const structField = z.object({ identifier, name: z.string().trim().min(1).max(64), dataType: scalarSpec }).strict();

/** A value's data type: a scalar, a struct of scalars, or an array of scalars or structs. */
export const dataSpec = z
  .object({
    ...scalarSpecShape,
    type: z.enum(dataTypes),
    fields: z.array(structField).max(64).nullish(),
    elementType: z.enum([...scalarTypes, 'struct']).nullish(),
    maxItems: z.number().int().min(1).max(10000).nullish(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    const needsFields = spec.type === 'struct' || (spec.type === 'array' && spec.elementType === 'struct');
    if (needsFields && !spec.fields?.length) ctx.addIssue({ code: 'custom', path: ['fields'], message: 'a struct needs its fields' });
    if (spec.type === 'array' && !spec.elementType)
      ctx.addIssue({ code: 'custom', path: ['elementType'], message: 'an array needs its element type' });
    if (spec.type !== 'struct' && spec.type !== 'array') checkScalar(spec, ctx);
    const ids = (spec.fields ?? []).map((f) => f.identifier);
    if (new Set(ids).size !== ids.length) ctx.addIssue({ code: 'custom', path: ['fields'], message: 'field identifiers must be unique' });
  });
export type DataSpec = z.infer<typeof dataSpec>;

export const param = z.object({ identifier, name: z.string().trim().min(1).max(64), dataType: dataSpec }).strict();
export type Param = z.infer<typeof param>;

export const functionTypes = ['property', 'service', 'event'] as const;
export type FunctionType = (typeof functionTypes)[number];
/** Spec §9 product interface types. */
export const invokeModes = ['sync', 'async'] as const;
export const eventLevels = ['info', 'warn', 'alert', 'fault'] as const;

const base = { name: z.string().trim().min(1).max(64), identifier, description: z.string().trim().max(256).nullish() };

/** One function of the thing model (spec §3 Product function: type, name, identifier, data type, data definition). */
export const thingFunction = z.discriminatedUnion('type', [
  z.object({ ...base, type: z.literal('property'), dataType: dataSpec, access: z.enum(['r', 'rw']).default('r') }).strict(),
  z
    .object({
      ...base,
      type: z.literal('service'),
      invoke: z.enum(invokeModes).default('async'),
      timeoutMs: z.number().int().min(100).max(90000).default(10000),
      inputs: z.array(param).max(64).default([]),
      outputs: z.array(param).max(64).default([]),
    })
    .strict(),
  z
    .object({ ...base, type: z.literal('event'), level: z.enum(eventLevels).default('info'), outputs: z.array(param).max(64).default([]) })
    .strict(),
]);
export type ThingFunction = z.infer<typeof thingFunction>;
export type ThingFunctionIn = z.input<typeof thingFunction>;

/** A whole thing model, as imported or exported (JSON): identifiers unique across properties, services and events. */
export const thingModel = z
  .object({ functions: z.array(thingFunction).max(1000) })
  .strict()
  .superRefine((model, ctx) => {
    const seen = new Map<string, number>();
    model.functions.forEach((f, i) => {
      if (seen.has(f.identifier))
        ctx.addIssue({
          code: 'custom',
          path: ['functions', i, 'identifier'],
          message: `identifier ${f.identifier} repeats row ${seen.get(f.identifier)! + 1}`,
        });
      else seen.set(f.identifier, i);
    });
  });
export type ThingModel = z.infer<typeof thingModel>;

/** A fault found in an imported file: the row (1-based function) and field, and why. */
export interface ModelFault {
  row: number;
  field: string;
  reason: string;
}

/** Every fault of a thing-model file, by row and field, or the model when it has none. */
export function parseThingModel(json: unknown): { ok: true; model: ThingModel } | { ok: false; faults: ModelFault[] } {
  const parsed = thingModel.safeParse(json);
  if (parsed.success) return { ok: true, model: parsed.data };
  return {
    ok: false,
    faults: parsed.error.issues.map((issue) => {
      const [first, index, ...rest] = issue.path;
      const inFunctions = first === 'functions' && typeof index === 'number';
      return {
        row: inFunctions ? index + 1 : 0,
        field: (inFunctions ? rest : issue.path).map(String).join('.') || '(file)',
        reason: issue.message,
      };
    }),
  };
}

/** Whether a reported value fits its data type: what the telemetry intake checks per value. */
export function valueFits(spec: DataSpec, value: unknown): boolean {
  switch (spec.type) {
    case 'int':
    case 'long':
      return typeof value === 'number' && Number.isInteger(value) && inRange(spec, value);
    case 'float':
    case 'double':
      return typeof value === 'number' && Number.isFinite(value) && inRange(spec, value);
    case 'bool':
      return typeof value === 'boolean' || value === 0 || value === 1;
    case 'enum':
      return (spec.enumValues ?? []).some((e) => e.value === value);
    case 'text':
      return typeof value === 'string' && value.length <= (spec.maxLength ?? 65535);
    case 'date':
      return (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && !Number.isNaN(Date.parse(value)));
    case 'struct':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value) && value.length <= (spec.maxItems ?? 10000);
  }
}
const inRange = (spec: DataSpec, v: number) => (spec.min == null || v >= spec.min) && (spec.max == null || v <= spec.max);
