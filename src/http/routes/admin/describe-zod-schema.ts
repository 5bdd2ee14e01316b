import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * A JSON Schema of a zod body schema, for the OpenAPI document only: the zod schema stays the one source
 * of truth and does the validating. Covers the zod types the admin bodies use; others become `{}`.
 */
export function describeZodSchema(schema: z.ZodTypeAny): JsonSchema {
  const description = schema.description === undefined ? {} : { description: schema.description };
  return { ...describeType(schema), ...description };
}

function describeType(schema: z.ZodTypeAny): JsonSchema {
  if (schema instanceof z.ZodObject) return describeObject(schema);
  if (schema instanceof z.ZodEffects) return describeZodSchema(schema.innerType());
  if (schema instanceof z.ZodOptional) return describeZodSchema(schema.unwrap());
  if (schema instanceof z.ZodDefault) return { ...describeZodSchema(schema.removeDefault()), default: schema._def.defaultValue() };
  if (schema instanceof z.ZodNullable) return { ...describeZodSchema(schema.unwrap()), nullable: true };
  if (schema instanceof z.ZodString) return { type: 'string', ...(schema.isURL ? { format: 'uri' } : {}) };
  if (schema instanceof z.ZodNumber) return { type: schema.isInt ? 'integer' : 'number' };
  if (schema instanceof z.ZodBoolean) return { type: 'boolean' };
  if (schema instanceof z.ZodEnum) return { type: 'string', enum: [...(schema.options as string[])] };
  if (schema instanceof z.ZodArray) return { type: 'array', items: describeZodSchema(schema.element) };
  if (schema instanceof z.ZodRecord) return { type: 'object', additionalProperties: describeZodSchema(schema.valueSchema) };
  return {};
}

function describeObject(schema: z.AnyZodObject): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodTypeAny>)) {
    // A `never` field exists only to refuse a value with a helpful message; it is not part of the interface.
    if (unwrapOptional(field) instanceof z.ZodNever) continue;
    properties[name] = describeZodSchema(field);
    if (!field.isOptional()) required.push(name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length === 0 ? {} : { required }),
    ...(schema._def.unknownKeys === 'strict' ? { additionalProperties: false } : {}),
  };
}

function unwrapOptional(schema: z.ZodTypeAny): z.ZodTypeAny {
  return schema instanceof z.ZodOptional ? unwrapOptional(schema.unwrap()) : schema;
}
