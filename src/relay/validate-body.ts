import type { ZodInvalidUnionIssue, ZodIssue } from 'zod';
import { GatewayError } from '../errors/gateway-error.js';
import { MultipartBody } from './multipart-body.js';

/** A relay body must be a JSON object; anything else is the client's error, said plainly. */
export function requireObjectBody(body: unknown): Record<string, unknown> {
  if (body === undefined) throw new GatewayError('invalid_json', 'Request body is empty; a JSON object is required.');
  if (body instanceof MultipartBody) throw new GatewayError('unsupported_media_type', 'This endpoint takes a JSON body (Content-Type: application/json), not a multipart form.');
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new GatewayError('invalid_request', 'Request body must be a JSON object.');
  return body as Record<string, unknown>;
}

/** The first schema issue as a 400 naming the parameter, in OpenAI's wording. */
export function invalidRequestFrom(issue: ZodIssue | undefined): GatewayError {
  if (issue === undefined) return new GatewayError('invalid_request', 'Invalid request body.');
  const param = issue.path.join('.');
  if (issue.code === 'invalid_type' && issue.received === 'undefined') return missingParameter(param);
  if (issue.code === 'invalid_union') {
    // zod says "Invalid input" when a value is none of a union's types (string or array): name them.
    const mismatch = unionTypeMismatch(issue);
    if (mismatch?.received === 'undefined') return missingParameter(param);
    if (mismatch !== undefined) return invalidParameter(param, `Expected ${mismatch.expected.join(' or ')}, received ${mismatch.received}`);
  }
  return invalidParameter(param, issue.message);
}

/** When every member of a union refused the value itself for its type: the types expected, and what came. */
function unionTypeMismatch(issue: ZodInvalidUnionIssue): { expected: string[]; received: string } | undefined {
  const expected: string[] = [];
  let received: string | undefined;
  for (const error of issue.unionErrors) {
    const [only, ...more] = error.issues;
    if (only === undefined || more.length > 0 || only.code !== 'invalid_type' || only.path.length !== issue.path.length) return undefined;
    expected.push(only.expected);
    received = only.received;
  }
  return received === undefined ? undefined : { expected, received };
}

/** `Missing required parameter: 'messages'.`, as OpenAI words it. */
export function missingParameter(param: string): GatewayError {
  return new GatewayError('invalid_request', `Missing required parameter: '${param}'.`, param === '' ? {} : { param });
}

/** `Invalid 'max_tokens': <reason>`, as OpenAI words it. */
export function invalidParameter(param: string, reason: string): GatewayError {
  return new GatewayError('invalid_request', `Invalid '${param}': ${reason}`, param === '' ? {} : { param });
}
