import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../test/support/seeded-random.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { invalidRequestFrom } from '../validate-body.js';
import { openaiEndpoints } from './openai-endpoints.js';
import { validateChatRequest } from './validate-chat-request.js';

/** What the client gets: undefined when the body passes. */
function outcomeOf(check: () => void): { message: string; param: string | undefined } | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    return { message: error.message, param: error.param };
  }
}

function byZod(body: Record<string, unknown>) {
  return outcomeOf(() => {
    const parsed = openaiEndpoints.chat.schema.safeParse(body);
    if (!parsed.success) throw invalidRequestFrom(parsed.error.issues[0]);
  });
}

const byHand = (body: Record<string, unknown>) => outcomeOf(() => validateChatRequest(body));

// Every JSON kind, plus the edge values each field's rules turn on.
const anyJson: unknown[] = [undefined, null, true, false, 0, -0, 1, -1, 1.5, -2.5, 1e400, -1e400, '', 'x', [], [1], {}, { a: 1 }];
const candidates: Record<string, unknown[]> = {
  model: [...anyJson, 'gpt-4o-mini'],
  messages: [
    ...anyJson,
    [{ role: 'user', content: 'hi' }],
    [{ role: '' }],
    [{ content: 'no role' }],
    [{ role: 7 }],
    [{ role: null }],
    [null],
    ['text'],
    [[]],
    [{ role: 'user' }, { role: 'assistant' }, 5],
    [{ role: 'user' }, { role: false }],
    [{ role: 'wizard', content: 'hi' }],
    [{ role: 'USER', content: 'hi' }],
    [{ role: 'user', content: 'hi' }, { role: 'tool' }],
    [{ role: 'user', content: 5 }],
    [{ role: 'user', content: null }],
    [{ role: 'system', content: {} }],
    [{ role: 'developer', content: [{ type: 'text', text: 'be brief' }] }],
    [{ role: 'assistant' }],
    [{ role: 'assistant', content: null, tool_calls: [] }],
    [{ role: 'assistant', content: false }],
    [{ role: 'function', name: 'f', content: null }],
    [{ role: 'tool', tool_call_id: 'c', content: true }],
  ],
  stream: anyJson,
  max_tokens: [...anyJson, 64, 2 ** 31 - 1, 2 ** 31, 2 ** 53, 1e300],
  max_completion_tokens: [...anyJson, 64, 2 ** 31 - 1, 2 ** 53 + 2],
  n: [...anyJson, 0, -1, 1.5, 2, 128, 129, 1e300],
  tools: [...anyJson, [{ type: 'function' }], [{ function: {} }], [{ type: 1 }], [null], [{ type: 'function' }, 'x']],
  stream_options: [...anyJson, { include_usage: true }, { include_usage: 'yes' }, { include_usage: null }, { other: 1 }],
};
const validBody = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
const validValues: Record<string, unknown[]> = {
  model: ['gpt-4o-mini'],
  messages: [[{ role: 'user', content: 'hi' }]],
  stream: [undefined, true, false],
  max_tokens: [undefined, null, 0, 64],
  max_completion_tokens: [undefined, null, 64],
  n: [undefined, null, 1, 4],
  tools: [undefined, null, [], [{ type: 'function' }]],
  stream_options: [undefined, null, {}, { include_usage: true }],
};

describe('validateChatRequest', () => {
  it('lets a valid body through, unknown fields included', () => {
    expect(byHand({ ...validBody, temperature: 0.2, whatever: { nested: true }, stream: true, stream_options: { include_usage: true }, max_tokens: 1, tools: [{ type: 'function', function: { name: 'f' } }] })).toBeUndefined();
  });

  it('names the missing parameter as OpenAI does', () => {
    expect(byHand({ messages: validBody.messages })).toEqual({ message: "Missing required parameter: 'model'.", param: 'model' });
    expect(byHand({ model: 'm', messages: [{ role: 'user', content: 'hi' }, {}] })).toEqual({ message: "Missing required parameter: 'messages.1.role'.", param: 'messages.1.role' });
    expect(byHand({ model: 'm', messages: [{ role: 'user' }] })).toEqual({ message: "Missing required parameter: 'messages.0.content'.", param: 'messages.0.content' });
  });

  it('refuses wrong types and bad budgets with the parameter named', () => {
    expect(byHand({ model: 'm', messages: 'hello' })).toEqual({ message: "Invalid 'messages': Expected array, received string", param: 'messages' });
    expect(byHand({ ...validBody, max_tokens: -1 })).toEqual({ message: "Invalid 'max_tokens': Number must be greater than 0", param: 'max_tokens' });
    expect(byHand({ ...validBody, max_completion_tokens: 0 })).toEqual({ message: "Invalid 'max_completion_tokens': Number must be greater than 0", param: 'max_completion_tokens' });
    expect(byHand({ ...validBody, max_completion_tokens: 1.5 })).toEqual({ message: "Invalid 'max_completion_tokens': Expected integer, received float", param: 'max_completion_tokens' });
    expect(byHand({ ...validBody, stream: 'yes' })).toEqual({ message: "Invalid 'stream': Expected boolean, received string", param: 'stream' });
    expect(byHand({ ...validBody, max_tokens: 1e300 })).toEqual({ message: "Invalid 'max_tokens': Number must be less than or equal to 2147483647", param: 'max_tokens' });
  });

  it('refuses roles and content OpenAI would refuse, so that no upstream call is paid for them', () => {
    expect(byHand({ model: 'm', messages: [{ role: 'wizard', content: 'hi' }] })).toEqual({
      message: "Invalid 'messages.0.role': Invalid value: 'wizard'. Supported values are: 'system', 'developer', 'user', 'assistant', 'tool' and 'function'.",
      param: 'messages.0.role',
    });
    expect(byHand({ model: 'm', messages: [{ role: 'user', content: 5 }] })).toEqual({ message: "Invalid 'messages.0.content': Expected string or array, received number", param: 'messages.0.content' });
    // An assistant turn that only calls tools has no content.
    expect(byHand({ model: 'm', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, tool_calls: [] }] })).toBeUndefined();
  });

  it('answers each field alone exactly as the zod schema does', () => {
    for (const [field, values] of Object.entries(candidates)) {
      for (const value of values) {
        const body: Record<string, unknown> = { ...validBody };
        if (value === undefined) delete body[field];
        else body[field] = value;
        expect({ field, value, outcome: byHand(body) }).toEqual({ field, value, outcome: byZod(body) });
      }
    }
  });

  it('answers random combinations exactly as the zod schema does (the first failing field wins)', () => {
    const random = seededRandom(6);
    const fields = Object.entries(candidates);
    let refused = 0;
    for (let round = 0; round < 5_000; round += 1) {
      const body: Record<string, unknown> = {};
      for (const [field, values] of fields) {
        // Mostly valid fields, so that refusals come from one or two fields and which one wins is tested.
        const pool = random() < 0.85 ? (validValues[field] ?? []) : values;
        const value = pool[Math.floor(random() * pool.length)];
        if (value !== undefined) body[field] = value;
      }
      const expected = byZod(body);
      if (expected !== undefined) refused += 1;
      expect({ body, outcome: byHand(body) }).toEqual({ body, outcome: expected });
    }
    // Both outcomes occur, so the comparison means something.
    expect(refused).toBeGreaterThan(100);
    expect(refused).toBeLessThan(5_000);
  });
});
