/** The request bodies every benchmark sends: a short chat, and the same chat streamed. */
import { benchModel } from './gateway.mjs';

export const chatBody = {
  model: benchModel,
  messages: [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'Say hello in five words.' },
  ],
};

// The client asks for usage itself, so the gateway passes the body through untouched and the client gets
// the same bytes directly and through the gateway (without it the gateway re-serializes the body once to
// ask the upstream for usage, and drops the usage chunk on the way back). `bench` tells the fake upstream
// how many chunks to send and how far apart.
export const streamBody = (bench) => ({ ...chatBody, stream: true, stream_options: { include_usage: true }, bench });
