import type { ZodIssue } from 'zod';
import { GatewayError } from '../errors/gateway-error.js';

/** A relay body must be a JSON object; anything else is the client's error, said plainly. */
export function requireObjectBody(body: unknown): Record<string, unknown> {
  if (body === undefined) throw new GatewayError('invalid_json', 'Request body is empty; a JSON object is required.');
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new GatewayError('invalid_request', 'Request body must be a JSON object.');
  return body as Record<string, unknown>;
}

/** The first schema issue as a 400 naming the parameter, in OpenAI's wording. */
export function invalidRequestFrom(issue: ZodIssue | undefined): GatewayError {
  const param = issue?.path.join('.') ?? '';
  if (issue === undefined) return new GatewayError('invalid_request', 'Invalid request body.');
  const message = issue.code === 'invalid_type' && issue.received === 'undefined' ? `Missing required parameter: '${param}'.` : `Invalid '${param}': ${issue.message}`;
  return new GatewayError('invalid_request', message, param === '' ? {} : { param });
}
