import type { FastifySchema } from 'fastify';
import type { z } from 'zod';
import { describeZodSchema, type JsonSchema } from './describe-zod-schema.js';

export interface AdminRouteDescription {
  tag: string;
  summary: string;
  description?: string;
  /** Path parameter name → its description. */
  params?: Record<string, { type: 'integer' | 'string'; description: string }>;
  querystring?: Record<string, JsonSchema>;
  body?: z.ZodTypeAny;
}

const envelope = {
  type: 'object',
  properties: {
    success: { type: 'boolean' },
    message: { type: 'string' },
    data: {},
  },
};

/** The (purely descriptive) Fastify schema of an admin route; the admin plugin turns Fastify's own validation off. */
export function describeAdminRoute(description: AdminRouteDescription): FastifySchema {
  return {
    tags: [description.tag],
    summary: description.summary,
    ...(description.description === undefined ? {} : { description: description.description }),
    security: [{ adminKey: [] }, { consoleSession: [] }],
    ...(description.params === undefined
      ? {}
      : { params: { type: 'object', properties: description.params, required: Object.keys(description.params) } }),
    ...(description.querystring === undefined ? {} : { querystring: { type: 'object', properties: description.querystring } }),
    ...(description.body === undefined ? {} : { body: describeZodSchema(description.body) }),
    response: {
      200: { description: 'Success: `{ success: true, message, data }`.', ...envelope },
      default: { description: 'Failure: `{ success: false, message }` with the status of the error (400, 401, 403, 404).', ...envelope },
    },
  };
}

export const pageQuerystring: Record<string, JsonSchema> = {
  p: { type: 'integer', minimum: 1, description: 'Page, 1-based (alias: page).' },
  page: { type: 'integer', minimum: 1, description: 'Page, 1-based.' },
  page_size: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Items per page (at most 100).' },
};

export const idParameter = { id: { type: 'integer', description: 'The numeric id.' } } as const;
