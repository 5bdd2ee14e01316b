/**
 * Type-confusion sweep: for a valid body, every field path (top level and nested) replaced by
 * each hostile value. Shared by the sweep probes of this folder.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestGateway } from '../support/start-test-gateway.js';
import { expectEnvelope, type Sent, type Style } from './bad-input-fixture.js';
import { appendFileSync } from 'node:fs';
import { readAnswer } from '../support/read-answer.js';

export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const deep = (): unknown => {
  let value: unknown = [];
  for (let i = 0; i < 99; i += 1) value = [value];
  return value;
};

/** The hostile values of the brief, by label. The 1 MB string is over the fixtures' max_body_mb (0.05): 413. */
export const hostile: Array<[string, () => unknown]> = [
  ['null', () => null],
  ['0', () => 0],
  ['-1', () => -1],
  ['1e308', () => 1e308],
  ['""', () => ''],
  ['"x"', () => 'x'],
  ['true', () => true],
  ['[]', () => []],
  ['{}', () => ({})],
  ['[null]', () => [null]],
  ['deep100', deep],
  ['1MB', () => 'x'.repeat(1_048_576)],
];

type Path = Array<string | number>;

/** Every path into a JSON value (objects' keys and arrays' indexes), parents before children. */
export function fieldPaths(value: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [];
  if (Array.isArray(value)) value.forEach((item, index) => out.push([...prefix, index], ...fieldPaths(item, [...prefix, index])));
  else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) out.push([...prefix, key], ...fieldPaths(item, [...prefix, key]));
  return out;
}

export function setAt(body: unknown, path: Path, value: unknown): unknown {
  const copy = structuredClone(body) as any;
  let node = copy;
  for (const step of path.slice(0, -1)) node = node[step];
  node[path.at(-1)!] = value;
  return copy;
}

export const pathName = (path: Path) => path.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('').replace(/^\./, '');

export interface RouteUnderTest {
  label: string;
  path: string;
  style: Style;
  body: Record<string, unknown>;
  /** Fields whose change changes the route and not the type test (e.g. `model`: another route's job). */
  skip?: string[];
  /** Optional fields the valid body leaves out, as dotted paths: each is added with every hostile value. */
  extra?: string[];
}

export interface SweepCase {
  name: string;
  route: RouteUnderTest;
  body: string;
}

/**
 * Every case of `routes` with the hostile values labelled in `labels` (all of them unless given).
 */
export function casesOf(routes: RouteUnderTest[], labels?: readonly string[]): SweepCase[] {
  const values = labels === undefined ? hostile : hostile.filter(([label]) => labels.includes(label));
  const cases: SweepCase[] = [];
  for (const route of routes) {
    for (const dotted of route.extra ?? []) {
      for (const [label, make] of values) {
        const body = structuredClone(route.body) as any;
        const steps = dotted.split('.');
        let node = body;
        for (const step of steps.slice(0, -1)) node = node[step] ??= {};
        node[steps.at(-1)!] = make();
        cases.push({ name: `${route.label} +${dotted} = ${label}`, route, body: JSON.stringify(body) });
      }
    }
    for (const path of fieldPaths(route.body)) {
      const name = pathName(path);
      if (route.skip?.includes(name)) continue;
      for (const [label, make] of values) cases.push({ name: `${route.label} ${name} = ${label}`, route, body: JSON.stringify(setAt(route.body, path, make())) });
    }
  }
  return cases;
}

type Balances = { tokens: unknown[]; users: unknown[]; openReservations: number };

export interface Watched {
  url: string;
  upstreamCalls(): number;
  balances(): Promise<Balances>;
}

export interface Outcome {
  sent: Sent;
  upstream: number;
}

/** A request as the sweeps send it: any method and body (JSON text, a form), a style whose envelope a refusal must have. */
export interface RawCase {
  method?: string;
  path: string;
  style: Style;
  body?: FormData | string;
  headers?: Record<string, string>;
  /** The key presented as a bearer token: the sweep's own unless set; null = none. */
  key?: string | null;
}

/**
 * Sends one request and asserts the bar: an answer within 15 s; never the gateway's own 500; 502–504
 * only after an upstream call; a refusal in the route's envelope with no balance moved and no reservation
 * open; the gateway still answers /healthz. Returns what was sent back and the balances around it.
 */
export async function checkRaw(fixture: Watched, testCase: RawCase, key: string): Promise<Outcome & { before: Balances; after: Balances; what: string }> {
  const before = await fixture.balances();
  const calls = fixture.upstreamCalls();
  const headers: Record<string, string> = { ...(testCase.headers ?? {}) };
  const presented = testCase.key === undefined ? key : testCase.key;
  if (presented !== null) headers.authorization = `Bearer ${presented}`;
  let sent: Sent;
  try {
    const response = await fetch(`${fixture.url}${testCase.path}`, { method: testCase.method ?? 'POST', headers, body: testCase.body, signal: AbortSignal.timeout(15_000) });
    const answer = await readAnswer(response);
    sent = { status: answer.status, body: answer.json, text: answer.text, headers: answer.headers };
  } catch (caught) {
    throw new Error(`no answer within 15 s (hang?): ${(caught as Error).message}`);
  }
  const upstream = fixture.upstreamCalls() - calls;
  const after = await fixture.balances();
  const health = await fetch(`${fixture.url}/healthz`);
  expect(health.status, 'gateway still up').toBe(200);
  const what = `status ${sent.status}, upstream calls ${upstream}: ${sent.text.slice(0, 400)}`;
  if (sent.status >= 500 && sent.status <= 504 && sent.status !== 501) expect(upstream, `${sent.status} without an upstream refusal: ${what}`).toBeGreaterThan(0);
  expect(sent.text, `the gateway's own crash answer: ${what}`).not.toContain('Internal server error');
  expect(after.openReservations, `open reservations: ${what}`).toBe(0);
  if (sent.status >= 400) {
    expectEnvelope(sent, testCase.style);
    expect(after, `balances moved on a refused request: ${what}`).toEqual(before);
  }
  return { sent, upstream, before, after, what };
}

/**
 * One JSON case of a sweep (the key in every style's header), with checkRaw's bar; a success must also be
 * charged a finite amount, never less than nothing, and its stream must end as its style ends one.
 */
export async function checkCase(fixture: Watched, testCase: SweepCase, key: string): Promise<Outcome> {
  const { sent, upstream, before, after, what } = await checkRaw(
    fixture,
    { path: testCase.route.path, style: testCase.route.style, body: testCase.body, headers: { 'content-type': 'application/json', 'x-api-key': key, 'x-goog-api-key': key } },
    key,
  );
  if (process.env.FUZZ_LOG) appendFileSync(process.env.FUZZ_LOG, `${JSON.stringify({ name: testCase.name, status: sent.status, upstream, text: sent.text.slice(0, 300) })}\n`);
  if (sent.status < 400) {
    if (sent.headers.get('content-type')?.includes('event-stream')) {
      const path = testCase.route.path;
      const end = path.endsWith('completions') ? '[DONE]' : path === '/v1/messages' ? 'message_stop' : path === '/v1/responses' ? 'response.completed' : 'finishReason';
      expect(sent.text, `a stream that did not end well: ${what}`).toContain(end);
    }
    for (const [i, row] of (after.tokens as Array<Record<string, number>>).entries()) {
      const was = (before.tokens as Array<Record<string, number>>)[i]!;
      expect(Number.isFinite(row.remain_quota) && Number.isFinite(row.used_quota), `token ${row.name} finite: ${JSON.stringify(row)}`).toBe(true);
      expect(row.used_quota, `token ${row.name} used_quota went down: ${what}`).toBeGreaterThanOrEqual(was.used_quota!);
    }
  }
  return { sent, upstream };
}

/**
 * Registers the sweep: one fixture for all cases, refilled before each (successful cases spend, and later
 * routes must not be refused for quota), every case its own test. `FUZZ_ONLY=<text>` keeps the cases naming it.
 */
export function sweep<F extends Watched & { gateway: TestGateway; close(): Promise<void> }>(title: string, cases: SweepCase[], start: () => Promise<F>, key: string): void {
  const only = process.env.FUZZ_ONLY;
  const kept = cases.filter((c) => only === undefined || c.name.includes(only));
  let fixture: F | undefined;
  beforeAll(async () => {
    fixture = await start();
  });
  beforeEach(async () => {
    const { db } = fixture!.gateway.gateway.services.database;
    await fixture!.gateway.settled();
    await db.updateTable('tokens').set({ remain_quota: 100_000_000 }).where('name', '=', 'good').execute();
    await db.updateTable('users').set({ quota: 1_000_000_000 }).where('username', '=', 'alice').execute();
  });
  afterAll(async () => {
    await fixture?.close();
  });
  describe(title, () => {
    it.each(kept.map((c) => [c.name, c] as const))('%s', async (_name, testCase) => {
      await checkCase(fixture!, testCase, key);
    });
  });
}
