import { afterEach, describe, expect, it } from 'vitest';
import { anthropicHeaders, openaiHeaders, sleep, startByteUpstream, startStreamGateway, writeAwait, type ByteUpstream, type ChannelStyle, type StreamGateway } from './stream-fixture.js';
import { callerKey } from '../billing-edges/billing-fixture.js';

/**
 * A same-style stream (relayed event by event, not converted) that the gateway must end mid-answer — the
 * upstream connection is cut, or one upstream event exceeds the 8 MiB bound — ends with an error in the
 * client's own style after the text already sent: Anthropic `event: error` (type api_error), Gemini a bare
 * `{"error": …}` object, Responses `event: error`. The row records the interruption; the reservation settles.
 */
let gw: StreamGateway | undefined;
let up: ByteUpstream | undefined;
afterEach(async () => {
  await gw?.close();
  await up?.close();
  gw = undefined;
  up = undefined;
});

type Style = Exclude<ChannelStyle, 'openai-chat'>;
const styles: Style[] = ['anthropic', 'gemini', 'openai-responses'];

/** The upstream's opening events, up to and including the text "Hi". */
function openingEvents(style: Style): string {
  const named = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  switch (style) {
    case 'anthropic':
      return (
        named('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm1', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }) +
        named('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
        named('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hi' } })
      );
    case 'gemini':
      return `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] }, index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1, totalTokenCount: 11 }, modelVersion: 'm1' })}\n\n`;
    case 'openai-responses': {
      const response = { id: 'resp_1', object: 'response', created_at: 1, status: 'in_progress', model: 'm1', output: [] };
      const item = { id: 'msg_1', type: 'message', status: 'in_progress', role: 'assistant', content: [] };
      return (
        named('response.created', { sequence_number: 0, response }) +
        named('response.output_item.added', { sequence_number: 1, output_index: 0, item }) +
        named('response.content_part.added', { sequence_number: 2, item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }) +
        named('response.output_text.delta', { sequence_number: 3, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi', logprobs: [] })
      );
    }
  }
}

function call(style: Style, url: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  switch (style) {
    case 'anthropic':
      return fetch(`${url}/v1/messages`, { method: 'POST', headers: { ...headers, ...anthropicHeaders }, body: JSON.stringify({ model: 'm1', stream: true, max_tokens: 100, messages: [{ role: 'user', content: 'Say hello' }] }) });
    case 'gemini':
      return fetch(`${url}/v1beta/models/m1:streamGenerateContent?alt=sse`, { method: 'POST', headers: { ...headers, 'x-goog-api-key': callerKey }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }] }) });
    case 'openai-responses':
      return fetch(`${url}/v1/responses`, { method: 'POST', headers: { ...headers, ...openaiHeaders }, body: JSON.stringify({ model: 'm1', stream: true, input: [{ role: 'user', content: 'Say hello' }] }) });
  }
}

/** Checks the body's last piece is the error in `style`'s own form, and that "Hi" came before it. */
function expectEndsWithOwnStyleError(style: Style, body: string): void {
  const pieces = body.replaceAll('\r\n', '\n').split('\n\n').filter((piece) => piece.trim() !== '');
  const last = pieces.at(-1) ?? '';
  expect(pieces.slice(0, -1).join('\n\n')).toContain('Hi');
  switch (style) {
    case 'anthropic': {
      const [eventLine, dataLine] = last.split('\n');
      expect(eventLine).toBe('event: error');
      expect(JSON.parse(dataLine!.replace(/^data: /, ''))).toMatchObject({ type: 'error', error: { type: 'api_error', message: expect.any(String) } });
      break;
    }
    case 'gemini':
      // Google's own form: a bare error object, no `data:` line (its SDK raises ApiError for it).
      expect(last.startsWith('{')).toBe(true);
      expect(JSON.parse(last)).toMatchObject({ error: { code: expect.any(Number), message: expect.any(String), status: expect.any(String) } });
      break;
    case 'openai-responses': {
      const [eventLine, dataLine] = last.split('\n');
      expect(eventLine).toBe('event: error');
      expect(JSON.parse(dataLine!.replace(/^data: /, ''))).toMatchObject({ type: 'error', message: expect.any(String) });
      break;
    }
  }
}

async function expectInterruptionSettled(gateway: StreamGateway, error: RegExp): Promise<void> {
  await sleep(100);
  const [row] = await gateway.logs();
  expect(row.status).toBe(200);
  expect(row.error ?? '').toMatch(error);
  const reservations = await gateway.reservations();
  expect(reservations.map((r) => r.state)).toEqual(['settled']);
  expect(reservations[0]!.settled_amount).toBe(row.quota);
}

describe('a same-style stream whose upstream connection is cut mid-answer ends with an error event in the client style', () => {
  for (const style of styles) {
    it(`${style} client ← ${style} upstream`, async () => {
      up = await startByteUpstream(async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        await writeAwait(res, openingEvents(style));
        await sleep(100);
        res.destroy();
      });
      gw = await startStreamGateway([{ model: 'm1', style, url: up.url }]);
      const response = await call(style, gw.gateway.url);
      expect(response.status).toBe(200);
      expectEndsWithOwnStyleError(style, await response.text());
      await expectInterruptionSettled(gw, /interrupt/);
    }, 30_000);
  }
});

describe('a same-style stream carrying one upstream event above 8 MiB ends with an error event in the client style', () => {
  for (const style of styles) {
    it(`${style} client ← ${style} upstream`, async () => {
      const huge = 'z'.repeat(9 * 1024 * 1024);
      const slice = 256 * 1024;
      up = await startByteUpstream(async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        await writeAwait(res, openingEvents(style));
        await sleep(50);
        const start = style === 'anthropic' ? 'event: ping\ndata: {"type":"ping","pad":"' : 'data: {"pad":"';
        for (let i = 0; i < huge.length; i += slice) if (!(await writeAwait(res, (i === 0 ? start : '') + huge.slice(i, i + slice)))) return;
        await writeAwait(res, '"}\n\n');
        res.end();
      });
      gw = await startStreamGateway([{ model: 'm1', style, url: up.url }]);
      const response = await call(style, gw.gateway.url);
      expect(response.status).toBe(200);
      expectEndsWithOwnStyleError(style, await response.text());
      await expectInterruptionSettled(gw, /exceeds|interrupt/);
    }, 30_000);
  }
});
