import { describe, expect, it } from 'vitest';
import { readRealtimeHandshake, upgradeProblem, upstreamProtocols } from './realtime-handshake.js';

describe('readRealtimeHandshake', () => {
  it('reads a Bearer key, the model and the beta header', () => {
    expect(readRealtimeHandshake({ authorization: 'Bearer sk-a', 'openai-beta': 'realtime=v1' }, '/v1/realtime?model=gpt-realtime')).toEqual({ key: 'sk-a', model: 'gpt-realtime', beta: 'realtime=v1', protocols: [], keyConflict: undefined });
  });

  it('reads the key from the browser subprotocol when there is no Authorization', () => {
    const handshake = readRealtimeHandshake({ 'sec-websocket-protocol': 'realtime, openai-insecure-api-key.sk-b,openai-beta.realtime-v1' }, '/v1/realtime?model=m');
    expect(handshake).toMatchObject({ key: 'sk-b', protocols: ['realtime', 'openai-insecure-api-key.sk-b', 'openai-beta.realtime-v1'], keyConflict: undefined });
  });

  it('marks two key subprotocols: which key the client meant is not known', () => {
    expect(readRealtimeHandshake({ 'sec-websocket-protocol': 'realtime, openai-insecure-api-key.sk-b, openai-insecure-api-key.sk-c' }, '/v1/realtime?model=m').keyConflict).toBe('protocols');
  });

  it('marks a Bearer key and a subprotocol key that differ, not the same key given both ways', () => {
    expect(readRealtimeHandshake({ authorization: 'Bearer sk-a', 'sec-websocket-protocol': 'realtime, openai-insecure-api-key.sk-b' }, '/v1/realtime?model=m').keyConflict).toBe('header_and_protocol');
    expect(readRealtimeHandshake({ authorization: 'Bearer sk-a', 'sec-websocket-protocol': 'realtime, openai-insecure-api-key.sk-a' }, '/v1/realtime?model=m')).toMatchObject({ key: 'sk-a', keyConflict: undefined });
    // An empty subprotocol key is none; a header of another scheme is refused as no valid key.
    expect(readRealtimeHandshake({ authorization: 'Bearer sk-a', 'sec-websocket-protocol': 'openai-insecure-api-key.' }, '/v1/realtime?model=m').keyConflict).toBeUndefined();
    expect(readRealtimeHandshake({ authorization: 'Basic abc', 'sec-websocket-protocol': 'openai-insecure-api-key.sk-b' }, '/v1/realtime?model=m')).toMatchObject({ key: '\u0000invalid', keyConflict: undefined });
  });

  it('reads the Bearer key before a subprotocol, marks a non-Bearer one invalid, and reads no key or model when absent', () => {
    expect(readRealtimeHandshake({ authorization: 'Bearer sk-a', 'sec-websocket-protocol': 'openai-insecure-api-key.sk-a' }, '/v1/realtime').key).toBe('sk-a');
    expect(readRealtimeHandshake({ authorization: 'Basic abc' }, '/v1/realtime?model=m').key).toBe('\u0000invalid');
    expect(readRealtimeHandshake({ 'sec-websocket-protocol': 'openai-insecure-api-key.' }, '/v1/realtime?model=').key).toBeUndefined();
    expect(readRealtimeHandshake({}, '/v1/realtime?model=').model).toBeUndefined();
  });
});

describe('upstreamProtocols', () => {
  it('offers the channel key in place of the client’s, keeping the beta marker, only for a subprotocol client', () => {
    const browser = readRealtimeHandshake({ 'sec-websocket-protocol': 'realtime, openai-insecure-api-key.sk-client, openai-beta.realtime-v1' }, '/v1/realtime?model=m');
    expect(upstreamProtocols(browser, 'sk-channel')).toEqual(['realtime', 'openai-insecure-api-key.sk-channel', 'openai-beta.realtime-v1']);
    expect(upstreamProtocols(readRealtimeHandshake({ authorization: 'Bearer sk-client' }, '/v1/realtime?model=m'), 'sk-channel')).toBeUndefined();
  });
});

describe('upgradeProblem', () => {
  const valid = { upgrade: 'websocket', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' };
  it('accepts what ws accepts', () => {
    expect(upgradeProblem('GET', valid, [])).toBeUndefined();
    expect(upgradeProblem('GET', { ...valid, upgrade: 'WebSocket', 'sec-websocket-version': '8' }, ['realtime', 'openai-insecure-api-key.sk-a'])).toBeUndefined();
  });

  it.each([
    ['POST', valid, []],
    ['GET', { ...valid, upgrade: 'h2c' }, []],
    ['GET', { ...valid, 'sec-websocket-key': 'short' }, []],
    ['GET', { ...valid, 'sec-websocket-version': '12' }, []],
    ['GET', valid, ['realtime', 'realtime']],
    ['GET', valid, ['real time']],
  ] as const)('refuses %s %j %j', (method, headers, protocols) => {
    expect(upgradeProblem(method, headers, protocols)).toBeDefined();
  });
});
