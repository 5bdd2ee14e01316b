import { describe, expect, it } from 'vitest';
import { readResponseRequest } from './read-response-request.js';

const frame = (event: unknown) => Buffer.from(JSON.stringify(event));

describe('readResponseRequest', () => {
  it('reads a response.create, with the event id the client gave it', () => {
    expect(readResponseRequest(frame({ type: 'response.create' }))).toEqual({ eventId: undefined });
    expect(readResponseRequest(frame({ event_id: 'evt_1', type: 'response.create', response: { conversation: 'none' } }))).toEqual({ eventId: 'evt_1' });
  });

  it('reads no other event, whatever text it quotes, and never parses an audio append', () => {
    expect(readResponseRequest(frame({ type: 'session.update', session: { instructions: '{"type":"response.create"}' } }))).toBeUndefined();
    expect(readResponseRequest(frame({ type: 'input_audio_buffer.append', audio: 'AAAA' }))).toBeUndefined();
    expect(readResponseRequest(Buffer.from('{"type":"input_audio_buffer.append","audio":"AAAA"} not json'))).toBeUndefined();
    expect(readResponseRequest(Buffer.from('not json'))).toBeUndefined();
    expect(readResponseRequest(frame(['response.create']))).toBeUndefined();
  });
});
