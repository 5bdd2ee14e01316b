/**
 * A fake OpenAI Responses upstream that replays real recorded traffic
 * (../shared/reference/recorded/openai-responses: a reasoning model answering "12 + 7 … = 570"), for
 * end-to-end tests of channels that speak Responses. `POST /v1/responses` streams the recorded
 * response that answers in text (`event: <type>` + `data: <json>`, no [DONE]) or answers the recorded body; `POST
 * /v1/responses/compact` answers a CompactedResponse.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedRequest } from './fake-openai-upstream.js';

const recorded = new URL('../../../shared/reference/recorded/openai-responses/', import.meta.url);

/** The recording holds several responses back to back; the one that answers in text is replayed. */
function recordedTextStream(): string[] {
  const lines = readFileSync(new URL('openai-reasoning-encrypted-content.1.chunks.txt', recorded), 'utf8').trim().split('\n');
  let start = 0;
  for (let index = 0; index < lines.length; index += 1) {
    if (!(lines[index] ?? '').includes('"type":"response.completed"')) continue;
    const segment = lines.slice(start, index + 1);
    if (segment.some((line) => line.includes('"type":"response.output_text.delta"'))) return segment;
    start = index + 1;
  }
  throw new Error('no recorded response answers in text');
}

/** The usage the replayed stream reports in its `response.completed` event. */
export function recordedStreamUsage(): { input_tokens: number; output_tokens: number } {
  const completed = JSON.parse(recordedTextStream().at(-1) ?? '{}') as { response: { usage: { input_tokens: number; output_tokens: number } } };
  return completed.response.usage;
}

export const recordedResponsesText = '12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570';
export const recordedResponsesUsage = { input_tokens: 865, output_tokens: 163, reasoning_tokens: 128 };

export interface FakeOpenaiResponsesUpstream {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startFakeOpenaiResponsesUpstream(expectedKey: string): Promise<FakeOpenaiResponsesUpstream> {
  const stream = recordedTextStream();
  const body = readFileSync(new URL('openai-reasoning-encrypted-content.1.json', recorded), 'utf8');
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const parsed = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
      requests.push({ method: request.method ?? 'POST', path: request.url ?? '/', headers: request.headers, body: parsed });
      if (request.headers.authorization !== `Bearer ${expectedKey}`) {
        response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }));
        return;
      }
      if (request.url === '/v1/responses/compact') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: 'resp_compact_001',
            object: 'response.compaction',
            created_at: 1765552659,
            output: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'earlier question' }] }, { type: 'compaction', id: 'cmp_001', encrypted_content: 'gAAAAB-opaque' }],
            usage: { input_tokens: 1200, input_tokens_details: { cached_tokens: 0 }, output_tokens: 300, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 1500 },
          }),
        );
        return;
      }
      if (request.url !== '/v1/responses') {
        response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `Invalid URL (POST ${request.url})`, type: 'invalid_request_error', param: null, code: null } }));
        return;
      }
      if (parsed?.stream !== true) {
        response.writeHead(200, { 'content-type': 'application/json' }).end(body);
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      for (const line of stream) response.write(`event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
