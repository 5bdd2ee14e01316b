import { describe, expect, it } from 'vitest';
// @ts-expect-error -- an .mjs module without type declarations
import { parseCallgrind, perfMapLookup } from '../../bench/lib/callgrind-file.mjs';

interface Parsed { own: Map<string, number>; calls: Map<string, { cost: number; count: number }> }
const parse = parseCallgrind as (text: string, lookup: (address: number) => string | undefined, callersOf?: RegExp) => Parsed;
const lookupIn = perfMapLookup as (text: string) => (address: number) => string | undefined;

/**
 * A main-thread file as callgrind writes it: compressed names (`(id) name` once, `(id)` after), relative
 * (`+n`) and repeated (`*`) positions, and a call's inclusive cost on the line after `calls=`.
 */
const file = [
  'version: 1',
  'positions: line',
  'events: Ir',
  'summary: 1100',
  '',
  'ob=(1) /usr/bin/node',
  'fl=(1) ???',
  'fn=(1) v8::internal::Runtime_DefineKeyedOwnPropertyInLiteral(int)',
  '0 300',
  '+1 100',
  '',
  'ob=(2)',
  'fl=(2) ???',
  'fn=(2) 0x0000000000001010',
  '0 200',
  '* 50',
  'cob=(1)',
  'cfi=(1)',
  'cfn=(1)',
  'calls=3 0',
  '0 400',
  '',
  'fn=(3) 0x0000000000002004',
  '-2 250',
  'cfn=(1)',
  'calls=1 0',
  '0 0',
  'fn=(1)',
  '0 200',
].join('\n');

const perfMap = [
  '1000 40 JS:*nextTick node:internal/process/task_queues:103:18',
  '2000 20 JS:*old file:///tmp/ic-a/dist/relay/old.js:1:1',
  '2000 20 JS:*runTextRelay file:///tmp/ic-b/dist/relay/text/run-text-relay.js:9:34',
].join('\n');

describe('callgrind files read per function', () => {
  it("counts each function's own cost, every cost-line form, and not its calls' inclusive cost", () => {
    const { own } = parse(file, lookupIn(perfMap));
    expect(Object.fromEntries(own)).toEqual({
      'v8::internal::Runtime_DefineKeyedOwnPropertyInLiteral(int)': 600,
      'JS:*nextTick node:internal/process/task_queues': 250,
      'JS:*runTextRelay dist/relay/text/run-text-relay.js': 250,
    });
    expect([...own.values()].reduce((sum, cost) => sum + cost, 0)).toBe(1100);
  });

  it('names a JIT address by the last perf map entry covering it, and marks one no entry covers', () => {
    const lookup = lookupIn(perfMap);
    expect(lookup(0x2004)).toBe('JS:*runTextRelay file:///tmp/ic-b/dist/relay/text/run-text-relay.js:9:34');
    expect(lookup(0x1040)).toBeUndefined();
    const { own } = parse(file, lookupIn(''));
    expect(own.get('<unnamed JIT code>')).toBe(500);
  });

  it('gives the calls into chosen functions with their inclusive cost and count', () => {
    const { calls } = parse(file, lookupIn(perfMap), /DefineKeyedOwnPropertyInLiteral/);
    expect(Object.fromEntries(calls)).toEqual({
      'JS:*nextTick node:internal/process/task_queues  →  v8::internal::Runtime_DefineKeyedOwnPropertyInLiteral(int)': { cost: 400, count: 3 },
      'JS:*runTextRelay dist/relay/text/run-text-relay.js  →  v8::internal::Runtime_DefineKeyedOwnPropertyInLiteral(int)': { cost: 0, count: 1 },
    });
    expect(parse(file, lookupIn(perfMap), /nothing/).calls.size).toBe(0);
  });
});
