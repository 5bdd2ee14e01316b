import { describe, expect, it } from 'vitest';
import { metadataKey, readResponseRequest } from './read-response-request.js';

const frame = (event: unknown) => Buffer.from(JSON.stringify(event));

describe('readResponseRequest', () => {
  it('reads a response.create, with the event id the client gave it', () => {
    expect(readResponseRequest(frame({ type: 'response.create' }))).toEqual({ eventId: undefined, ownInputText: undefined, outOfBand: false, metadata: null });
    expect(readResponseRequest(frame({ event_id: 'evt_1', type: 'response.create', response: { conversation: 'none' } }))).toEqual({ eventId: 'evt_1', ownInputText: undefined, outOfBand: true, metadata: null });
  });

  it('reads whether it is out of band and its metadata, in one form whatever the key order', () => {
    const asked = readResponseRequest(frame({ type: 'response.create', response: { conversation: 'auto', metadata: { topic: 'weather', purpose: 'summary' } } }));
    expect(asked).toMatchObject({ outOfBand: false, metadata: metadataKey({ purpose: 'summary', topic: 'weather' }) });
    expect(metadataKey({ b: '2', a: '1' })).toBe(metadataKey({ a: '1', b: '2' }));
    expect(metadataKey({ a: '1' })).not.toBe(metadataKey({ a: '2' }));
    expect([metadataKey(null), metadataKey(undefined), metadataKey('text')]).toEqual([null, undefined, undefined]);
  });

  it("reads the text of a response's own input, every item's (the client wrote them all), none of an item reference or audio", () => {
    const input = [
      { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'Be brief.' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello' }, { type: 'input_audio', audio: 'AAAA', transcript: 'spoken' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hi.' }] },
      { type: 'function_call_output', call_id: 'c', output: '{"ok":true}' },
      { type: 'item_reference', id: 'item_1' },
    ];
    expect(readResponseRequest(frame({ type: 'response.create', response: { conversation: 'none', input } }))?.ownInputText).toBe('Be brief.\nHello\nHi.\n{"ok":true}');
    // An empty input is a context of its own: nothing of the conversation is read.
    expect(readResponseRequest(frame({ type: 'response.create', response: { input: [] } }))?.ownInputText).toBe('');
  });

  it('reads no other event, whatever text it quotes, and never parses an audio append', () => {
    expect(readResponseRequest(frame({ type: 'session.update', session: { instructions: '{"type":"response.create"}' } }))).toBeUndefined();
    expect(readResponseRequest(frame({ type: 'input_audio_buffer.append', audio: 'AAAA' }))).toBeUndefined();
    expect(readResponseRequest(Buffer.from('{"type":"input_audio_buffer.append","audio":"AAAA"} not json'))).toBeUndefined();
    expect(readResponseRequest(Buffer.from('not json'))).toBeUndefined();
    expect(readResponseRequest(frame(['response.create']))).toBeUndefined();
  });
});
