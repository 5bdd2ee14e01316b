import { describe, expect, it } from 'vitest';
import { buildUpstreamBody } from './build-upstream-body.js';

const bytesOf = (body: Record<string, unknown>): Buffer => Buffer.from(JSON.stringify(body));
const parsed = (sent: string | Buffer): unknown => JSON.parse(sent.toString());

describe('buildUpstreamBody', () => {
  it("sends the client's own bytes when nothing changes", () => {
    const body = { model: 'gpt-5', input: 'x' };
    const raw = bytesOf(body);
    expect(buildUpstreamBody(raw, body, 'gpt-5', false, false)).toBe(raw);
  });

  it("drops the client's stream: true for an endpoint that never streams (responses compaction), keeping every other field", () => {
    const body = { model: 'gpt-5', input: 'x', stream: true, instructions: 'Compact.' };
    expect(parsed(buildUpstreamBody(bytesOf(body), body, 'gpt-5', false, false))).toEqual({ model: 'gpt-5', input: 'x', instructions: 'Compact.' });
  });

  it('keeps stream: false as sent (the bytes are not rewritten for it)', () => {
    const body = { model: 'gpt-5', input: 'x', stream: false };
    const raw = bytesOf(body);
    expect(buildUpstreamBody(raw, body, 'gpt-5', false, false)).toBe(raw);
  });

  it('keeps stream for an endpoint that streams, and asks for streamed usage when told to', () => {
    const body = { model: 'gpt-4o', messages: [], stream: true };
    expect(parsed(buildUpstreamBody(bytesOf(body), body, 'gpt-4o-mapped', true))).toEqual({ model: 'gpt-4o-mapped', messages: [], stream: true, stream_options: { include_usage: true } });
  });

  it('adds an output limit the client did not name: spliced into its bytes when it is the only change, else re-serialized', () => {
    const limit = { field: 'max_tokens', tokens: 4096 };
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
    const raw = Buffer.from(' \n{ "model": "gpt-4o", "messages": [{"role":"user","content":"hi"}] }');
    const spliced = buildUpstreamBody(raw, body, 'gpt-4o', false, true, limit);
    expect(spliced.toString()).toBe(' \n{"max_tokens":4096, "model": "gpt-4o", "messages": [{"role":"user","content":"hi"}] }');
    expect(parsed(buildUpstreamBody(bytesOf(body), body, 'gpt-4o-mapped', false, true, limit))).toEqual({ model: 'gpt-4o-mapped', messages: body.messages, max_tokens: 4096 });
    // A key sent as null is not spliced next to (a parser would take the later null): the body is re-serialized.
    const withNull = { model: 'gpt-4o', messages: [], max_tokens: null };
    expect(parsed(buildUpstreamBody(bytesOf(withNull), withNull, 'gpt-4o', false, true, limit))).toEqual({ model: 'gpt-4o', messages: [], max_tokens: 4096 });
    expect(buildUpstreamBody(Buffer.from('{ }'), {}, undefined, false, true, limit).toString()).toBe('{"max_tokens":4096 }');
  });
});
