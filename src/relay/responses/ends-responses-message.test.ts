import { describe, expect, it } from 'vitest';
import { endsResponsesMessage, startsResponsesOutput } from './ends-responses-message.js';

describe('endsResponsesMessage', () => {
  it("knows the events that finish the answer's message", () => {
    expect(endsResponsesMessage('{"type":"response.output_text.done","item_id":"msg_1","output_index":1,"content_index":0,"text":"Hi"}')).toBe(true);
    expect(endsResponsesMessage('{"type":"response.refusal.done","refusal":"No."}')).toBe(true);
    expect(endsResponsesMessage('{"type":"response.content_part.done","part":{"type":"output_text","text":"Hi"}}')).toBe(true);
    expect(endsResponsesMessage('{"sequence_number":9,"type":"response.output_item.done","item":{"id":"msg_1","type":"message","status":"completed"}}')).toBe(true);
  });

  it('is false for everything a message may still follow, and for what is not an event', () => {
    expect(endsResponsesMessage('{"type":"response.output_item.done","item":{"id":"rs_1","type":"reasoning"}}')).toBe(false);
    expect(endsResponsesMessage('{"type":"response.output_item.done","item":{"type":"function_call","name":"f"}}')).toBe(false);
    expect(endsResponsesMessage('{"type":"response.function_call_arguments.done","arguments":"{}"}')).toBe(false);
    expect(endsResponsesMessage('{"type":"response.content_part.done","part":{"type":"reasoning_text"}}')).toBe(false);
    expect(endsResponsesMessage('{"type":"response.output_text.delta","delta":"response.output_text.done"}')).toBe(false);
    expect(endsResponsesMessage('not json')).toBe(false);
    expect(endsResponsesMessage('[1]')).toBe(false);
  });
});

describe('startsResponsesOutput', () => {
  it('knows the events that begin more output, and no closing one', () => {
    expect(startsResponsesOutput('{"type":"response.output_item.added","item":{"type":"function_call"}}')).toBe(true);
    expect(startsResponsesOutput('{"type":"response.content_part.added","part":{"type":"output_text"}}')).toBe(true);
    expect(startsResponsesOutput('{"type":"response.function_call_arguments.delta","delta":"{"}')).toBe(true);
    expect(startsResponsesOutput('{"type":"response.output_text.delta","delta":"x"}')).toBe(true);
    expect(startsResponsesOutput('{"type":"response.output_item.done","item":{"type":"message"}}')).toBe(false);
    expect(startsResponsesOutput('{"type":"response.completed","response":{}}')).toBe(false);
    expect(startsResponsesOutput('not json')).toBe(false);
  });
});
