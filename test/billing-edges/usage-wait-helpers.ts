import type OpenAI from 'openai';
import type { WireUsage } from '../fakes/scripted-vendor-wire.js';
import { settledRow } from '../support/booked-request.js';
import { modelOf, promptText, type BillingFixture } from './billing-fixture.js';

/** A reasoning model's report: most of the output is reasoning the client never sees, and part of the prompt was cached. */
export const reasoningReport: WireUsage = { input: 1_200, cacheRead: 1_024, output: 2_000, reasoning: 1_900 };

/** The openai SDK's streamed Responses call, left at the first event of type `leaveAt` (breaking the loop aborts the request). */
export async function responsesLeftAt(current: BillingFixture, leaveAt: string): Promise<string> {
  const stream = await current.sdk.openai.responses.create({ model: modelOf['openai-responses'], input: promptText, stream: true });
  let text = '';
  for await (const event of stream) {
    if (event.type === 'response.output_text.delta') text += event.delta;
    if (event.type === leaveAt) break;
  }
  return text;
}

/** The openai SDK's streamed chat, left at the finish_reason (breaking the loop aborts the request); `extra` joins the body. */
export async function chatLeftAtFinish(current: BillingFixture, extra: Partial<OpenAI.Chat.ChatCompletionCreateParamsStreaming> = {}): Promise<string> {
  const stream = await current.sdk.openai.chat.completions.create({ model: modelOf['openai-chat'], messages: [{ role: 'user', content: promptText }], stream_options: { include_usage: true }, ...extra, stream: true });
  let text = '';
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    if (chunk.choices[0]?.finish_reason) break;
  }
  return text;
}

/** The request's one new log row, once settled (its reservation at the row's charge): what billing read. */
export async function rowOf(current: BillingFixture, logsBefore: number) {
  // A client abort settles after the socket closes: give the gateway a moment before waiting on it.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const row = await settledRow(current, logsBefore);
  return { status: row.status, source: row.usage_source, input: row.input_tokens, output: row.output_tokens, quota: row.quota };
}
