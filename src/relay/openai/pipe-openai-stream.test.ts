import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UsageMeter } from '../usage-meter.js';
import { pipeOpenaiStream } from './pipe-openai-stream.js';

/** A client socket stand-in that records every write and whether the response was corked at the time. */
function recordingReply() {
  let corked = 0;
  const writes: { text: string; corked: boolean }[] = [];
  let ended = false;
  const raw = {
    writeHead: () => raw,
    write(text: string) {
      writes.push({ text, corked: corked > 0 });
      return true;
    },
    end() {
      ended = true;
    },
    cork() {
      corked += 1;
    },
    uncork() {
      corked -= 1;
    },
    destroyed: false,
    writableEnded: false,
  };
  const reply = { raw, hijack: () => reply } as unknown as FastifyReply;
  return { reply, writes, isEnded: () => ended, corkDepth: () => corked };
}

const chunk = (content: string) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`;

describe('pipeOpenaiStream', () => {
  it('writes all the events of one upstream read while the response is corked (one socket write), in order', async () => {
    const client = recordingReply();
    const meter = new UsageMeter();
    const upstream = Readable.from([Buffer.from(chunk('Hel') + chunk('lo') + chunk('!')), Buffer.from('data: [DONE]\n\n')]);
    const result = await pipeOpenaiStream({ body: upstream, reply: client.reply, headers: { 'x-request-id': 'r' }, meter, clientWantsUsage: false, maxEventBytes: 65_536, now: () => 1 });
    expect(result).toEqual({ kind: 'completed' });
    expect(client.writes.map((write) => write.text)).toEqual([chunk('Hel'), chunk('lo'), chunk('!'), 'data: [DONE]\n\n']);
    expect(client.writes.every((write) => write.corked)).toBe(true);
    expect(client.corkDepth()).toBe(0);
    expect(client.isEnded()).toBe(true);
  });
});
