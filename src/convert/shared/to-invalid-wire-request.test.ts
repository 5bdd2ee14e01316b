import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toInvalidWireRequest } from './to-invalid-wire-request.js';

const schema = z.object({ content: z.array(z.object({ text: z.string() })) });

describe('toInvalidWireRequest', () => {
  it('names the field at fault the OpenAI way, under the prefix of the value parsed', () => {
    const parsed = schema.safeParse({ content: [{ text: 'ok' }, { text: 7 }] });
    if (parsed.success) throw new Error('expected a zod error');
    const refusal = toInvalidWireRequest(parsed.error, 'messages[0]');
    expect(refusal).toMatchObject({ invalid: true, param: 'messages[0].content[1].text' });
    expect(refusal.message).toMatch(/^Invalid value for 'messages\[0\]\.content\[1\]\.text': /);
  });

  it('names the body when the whole value is at fault and there is no prefix', () => {
    const parsed = schema.safeParse('not an object');
    if (parsed.success) throw new Error('expected a zod error');
    expect(toInvalidWireRequest(parsed.error)).toMatchObject({ invalid: true, param: '' });
    expect(toInvalidWireRequest(parsed.error).message).toMatch(/^Invalid value for 'body': /);
  });
});
