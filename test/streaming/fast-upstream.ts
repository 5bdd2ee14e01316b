/** An upstream that streams as fast as the gateway lets it (honours backpressure) and counts what it wrote. */
import type { ServerResponse } from 'node:http';
import { startByteUpstream, writeAwait, type ByteUpstream } from './stream-fixture.js';

export interface FastStream {
  upstream: ByteUpstream;
  /** Bytes handed to the socket per request, in order of arrival. */
  written: number[];
  finished: boolean[];
}

const pad = 'x'.repeat(16 * 1024);

/** `events` content events of ~16 KB each (text "hi" each), then the final usage: input 10, output `events`. */
export async function startFastUpstream(style: 'openai-chat' | 'anthropic', events: number, bigText = false): Promise<FastStream> {
  const text = bigText ? `hi|${'y'.repeat(16 * 1024)}` : 'hi|';
  const padding = bigText ? '' : pad;
  const state: FastStream = { upstream: undefined as unknown as ByteUpstream, written: [], finished: [] };
  state.upstream = await startByteUpstream(async (_req, res: ServerResponse) => {
    const index = state.written.length;
    state.written.push(0);
    state.finished.push(false);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    const send = async (text: string) => {
      const ok = await writeAwait(res, text);
      state.written[index]! += Buffer.byteLength(text);
      return ok;
    };
    if (style === 'openai-chat') {
      const chunk = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', pad: padding, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      if (!(await send(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })}\n\n`))) return;
      for (let i = 0; i < events; i++) if (!(await send(chunk({ content: text })))) return;
      await send(chunk({}, 'stop'));
      await send(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 10, completion_tokens: events, total_tokens: 10 + events } })}\n\n`);
      await send('data: [DONE]\n\n');
    } else {
      const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
      if (!(await send(ev('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } })))) return;
      if (!(await send(ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } })))) return;
      for (let i = 0; i < events; i++) if (!(await send(ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text }, pad: padding })))) return;
      await send(ev('content_block_stop', { index: 0 }));
      await send(ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: events } }));
      await send(ev('message_stop', {}));
    }
    state.finished[index] = true;
    res.end();
  });
  return state;
}
