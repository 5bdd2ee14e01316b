import type { TestGateway } from '../support/start-test-gateway.js';
import { readAnswer } from '../support/read-answer.js';

export interface ApiAnswer {
  status: number;
  /** The parsed JSON body (the `{ success, message, data }` envelope on /api routes). */
  body: any;
  text: string;
  headers: Headers;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body text, sent as is (invalid JSON tests). */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** One HTTP call to the running test gateway, answering status, parsed body and raw text. */
export async function callGateway(gateway: TestGateway, method: string, path: string, options: RequestOptions = {}): Promise<ApiAnswer> {
  const hasBody = options.body !== undefined || options.rawBody !== undefined;
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...options.headers },
    ...(hasBody ? { body: options.rawBody ?? JSON.stringify(options.body) } : {}),
  });
  const { status, json: body, text, headers } = await readAnswer(response);
  return { status, body, text, headers };
}

/** A call authenticated with the root admin key. */
export function callAdmin(gateway: TestGateway, method: string, path: string, options: RequestOptions = {}): Promise<ApiAnswer> {
  return callGateway(gateway, method, path, { ...options, headers: { authorization: `Bearer ${gateway.adminKey}`, ...options.headers } });
}

/** The ids of the models a key may use, as GET /v1/models lists them. */
export async function listModelIds(gateway: TestGateway, key: string): Promise<string[]> {
  const answer = await callGateway(gateway, 'GET', '/v1/models', { headers: { authorization: `Bearer ${key}` } });
  if (answer.status !== 200) throw new Error(`GET /v1/models answered ${answer.status}: ${answer.text}`);
  return (answer.body.data as { id: string }[]).map((model) => model.id).sort();
}

/** Logs in through the console route and answers the `name=value` of the session cookie. */
export async function logIn(gateway: TestGateway, username: string, password: string): Promise<string> {
  const response = await fetch(`${gateway.url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`login answered ${response.status}: ${text}`);
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith('relay_session='));
  if (cookie === undefined) throw new Error('login set no relay_session cookie');
  return cookie.split(';', 1)[0] ?? '';
}
