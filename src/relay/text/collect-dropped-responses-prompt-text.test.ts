import { describe, expect, it } from 'vitest';
import { collectDroppedResponsesPromptText } from './collect-dropped-responses-prompt-text.js';

describe('collectDroppedResponsesPromptText', () => {
  it("counts a compaction item's encrypted_content, which the canonical parser drops and a Responses channel bills", () => {
    const compacted = 'gAAAAAB'.padEnd(40_000, 'x');
    const prompt = collectDroppedResponsesPromptText({ input: [{ type: 'compaction', id: 'cmp_1', encrypted_content: compacted }, { role: 'user', content: 'go on' }] });
    expect(prompt).toEqual({ texts: [], extraTokens: 10_000, opaqueTokens: 10_000 });
  });

  it("leaves a reasoning item's encrypted_content to the canonical form, which carries (and counts) it", () => {
    const prompt = collectDroppedResponsesPromptText({ input: [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAAAB'.padEnd(400, 'x') }] });
    expect(prompt.extraTokens).toBe(0);
  });

  it('reads nothing from a string input, or from items without opaque content', () => {
    expect(collectDroppedResponsesPromptText({ input: 'hello' }).extraTokens).toBe(0);
    expect(collectDroppedResponsesPromptText({ input: [{ type: 'item_reference', id: 'msg_1' }, null, 3] }).extraTokens).toBe(0);
  });
});
