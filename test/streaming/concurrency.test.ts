import { afterEach, expect, it } from 'vitest';
import { openaiHeaders, sleep, startStreamGateway, startByteUpstream, writeAwait, type StreamGateway, type ByteUpstream } from './stream-fixture.js';
import { seededRandom } from '../support/seeded-random.js';

let gw: StreamGateway | undefined;
let up: ByteUpstream | undefined;
afterEach(async () => {
  await gw?.close();
  await up?.close();
});

it('200 concurrent streams, half the clients leave at random points: no open reservation, each row = its settlement, balances add up', async () => {
  up = await startByteUpstream(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const base = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm' };
    for (let i = 0; i < 20; i++) {
      if (!(await writeAwait(res, `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: ' word' }, finish_reason: null }] })}\n\n`))) return;
      await sleep(10);
    }
    await writeAwait(res, `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 } })}\n\ndata: [DONE]\n\n`);
    res.end();
  });
  gw = await startStreamGateway([{ model: 'm1', style: 'openai-chat', url: up.url }], {}, { token: 100_000_000, user: 100_000_000 });
  const random = seededRandom(7);
  const url = gw.gateway.url;
  await Promise.all(Array.from({ length: 200 }, async (_, i) => {
    const controller = new AbortController();
    const leave = i % 2 === 0;
    if (leave) setTimeout(() => controller.abort(), Math.floor(random() * 300));
    try {
      const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', signal: controller.signal, headers: { 'content-type': 'application/json', ...openaiHeaders }, body: JSON.stringify({ model: 'm1', stream: true, max_tokens: 50, messages: [{ role: 'user', content: 'Say hello' }] }) });
      await response.text();
    } catch {
      /* aborted */
    }
  }));
  await sleep(500);
  const rows = await gw.logs();
  const reservations = await gw.reservations();
  expect(reservations.filter((r) => r.state === 'reserved')).toEqual([]);
  // a client gone before admission leaves no row and no reservation
  expect(rows.length).toBe(reservations.length);
  expect(rows.length).toBeGreaterThanOrEqual(100);
  const byId = new Map(reservations.map((r) => [r.id, r]));
  const matched = rows.filter((row) => byId.has(row.request_id));
  if (matched.length === rows.length) for (const row of rows) expect([row.request_id, byId.get(row.request_id)!.settled_amount]).toEqual([row.request_id, row.quota]);
  else expect(reservations.map((r) => r.settled_amount ?? 0).sort((a, b) => a - b)).toEqual(rows.map((r) => Number(r.quota)).sort((a, b) => a - b));
  const sum = rows.reduce((s, r) => s + Number(r.quota), 0);
  const balances = await gw.balances();
  expect({ token: balances.tokenUsed, user: balances.userUsed, remain: balances.tokenRemain }).toEqual({ token: sum, user: sum, remain: 100_000_000 - sum });
}, 60_000);
