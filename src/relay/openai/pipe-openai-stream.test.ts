import type { FastifyReply } from 'fastify';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UsageMeter } from '../usage-meter.js';
import { pipeOpenaiStream } from './pipe-openai-stream.js';

/** A client socket stand-in that records every write. */
function recordingReply() {
  const writes: { text: string }[] = [];
  let ended = false;
  const raw = {
    writeHead: () => raw,
    write(text: string | Uint8Array) {
      writes.push({ text: typeof text === 'string' ? text : Buffer.from(text).toString('utf8') });
      return true;
    },
    end() {
      ended = true;
    },
    destroyed: false,
    writableEnded: false,
  };
  const reply = { raw, hijack: () => reply } as unknown as FastifyReply;
  return { reply, writes, isEnded: () => ended };
}

const chunk = (content: string) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`;

describe('pipeOpenaiStream', () => {
  it('writes all the events of one upstream read in one write to the client, in order', async () => {
    const client = recordingReply();
    const meter = new UsageMeter();
    const upstream = Readable.from([Buffer.from(chunk('Hel') + chunk('lo') + chunk('!')), Buffer.from('data: [DONE]\n\n')]);
    const result = await pipeOpenaiStream({ body: upstream, reply: client.reply, headers: { 'x-request-id': 'r' }, meter, clientWantsUsage: false, maxEventBytes: 65_536, now: () => 1 });
    expect(result).toEqual({ kind: 'completed' });
    expect(client.writes.map((write) => write.text)).toEqual([chunk('Hel') + chunk('lo') + chunk('!'), 'data: [DONE]\n\n']);
    expect(client.isEnded()).toBe(true);
  });
});

const usageChunk = (usage: unknown, choices: unknown[] = []) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices, usage })}\n\n`;
const withNullUsage = (content: string) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }], usage: null })}\n\n`;
const usage = { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 };

describe('pipeOpenaiStream usage and local count', () => {
  const pipe = async (events: string[], clientWantsUsage = false) => {
    const client = recordingReply();
    const meter = new UsageMeter();
    let clock = 0;
    const result = await pipeOpenaiStream({ body: Readable.from(events.map((event) => Buffer.from(event))), reply: client.reply, headers: {}, meter, clientWantsUsage, maxEventBytes: 65_536, now: () => (clock += 1) });
    return { result, meter, texts: client.writes.map((write) => write.text) };
  };

  it("counts every chunk's text locally when the upstream reports no usage (chunks after the first text are parsed only then)", async () => {
    const { meter, texts } = await pipe([chunk(''), chunk('Hello'), withNullUsage(' there,'), chunk(' friend'), 'data: [DONE]\n\n']);
    expect(meter.upstreamUsage).toBeUndefined();
    // The same text as one string: the tally counts what was produced, whatever the chunking.
    const { countTextTokens } = await import('../count-tokens.js');
    expect(await meter.outputTally.total()).toBe(await countTextTokens('Hello there, friend'));
    expect(texts).toHaveLength(5);
  });

  it('takes the upstream usage from a late chunk, drops the usage-only chunk the client did not ask for', async () => {
    const { meter, texts } = await pipe([chunk('Hi'), withNullUsage('!'), usageChunk(usage), 'data: [DONE]\n\n']);
    expect(meter.upstreamUsage).toMatchObject({ input: { total: 9, cacheRead: 0, cacheWrite: 0 }, output: { total: 4, reasoning: 0 } });
    expect(texts).toEqual([chunk('Hi'), withNullUsage('!'), 'data: [DONE]\n\n']);
  });

  it('forwards the usage chunk when the client asked for it', async () => {
    const { meter, texts } = await pipe([chunk('Hi'), usageChunk(usage), 'data: [DONE]\n\n'], true);
    expect(meter.upstreamUsage?.output.total).toBe(4);
    expect(texts).toEqual([chunk('Hi'), usageChunk(usage), 'data: [DONE]\n\n']);
  });

  it('reads usage carried by a chunk that also has text, written with spaces', async () => {
    const spaced = `data: {"id":"c","choices":[{"index":0,"delta":{"content":"!"}}], "usage" : {"prompt_tokens":2,"completion_tokens":3,"total_tokens":5}}\n\n`;
    const { meter } = await pipe([chunk('Hi'), spaced, 'data: [DONE]\n\n']);
    expect(meter.upstreamUsage?.input.total).toBe(2);
    expect(meter.upstreamUsage?.output.total).toBe(3);
  });

  it('takes usage that counts nothing for no report (the text is counted), yet as the end of the stream when [DONE] is missing', async () => {
    const zeros = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    const { result, meter } = await pipe([chunk('Hello'), chunk(' there'), usageChunk(zeros)]);
    expect(result).toEqual({ kind: 'completed' });
    expect(meter.upstreamUsage).toBeUndefined();
    const { countTextTokens } = await import('../count-tokens.js');
    expect(await meter.outputTally.total()).toBe(await countTextTokens('Hello there'));
  });

  it("leaves a Completions stream's echoed prompt out of the local count, split across deltas, per choice", async () => {
    const text = (index: number, value: string) => `data: ${JSON.stringify({ id: 'c', object: 'text_completion', choices: [{ index, text: value, finish_reason: null }] })}\n\n`;
    const client = recordingReply();
    const meter = new UsageMeter();
    const prompts = ['Once upon', 'In a land'];
    const events = [text(0, 'Once'), text(1, 'In a land'), text(0, ' upon a'), text(1, ' far'), text(0, ' time'), 'data: [DONE]\n\n'];
    await pipeOpenaiStream({ body: Readable.from(events.map((event) => Buffer.from(event))), reply: client.reply, headers: {}, meter, clientWantsUsage: false, maxEventBytes: 65_536, now: () => 1, echoedPrompt: (index) => prompts[index] });
    const { countTextTokens } = await import('../count-tokens.js');
    expect(await meter.outputTally.total()).toBe((await countTextTokens(' a')) + (await countTextTokens(' far')) + (await countTextTokens(' time')));
  });

  it('records the first-token time at the first chunk with text, not at the role chunk', async () => {
    const { meter } = await pipe([chunk(''), chunk(''), chunk('Hi'), chunk('!'), 'data: [DONE]\n\n']);
    // now() ticks once per call: the role chunks did not call it, the first text did.
    expect(meter.firstTokenAt).toBe(1);
  });
});

describe('pipeOpenaiStream, however the upstream cuts its reads', () => {
  const run = async (reads: Buffer[], clientWantsUsage = false) => {
    const client = recordingReply();
    const meter = new UsageMeter();
    let clock = 0;
    const result = await pipeOpenaiStream({ body: Readable.from(reads), reply: client.reply, headers: {}, meter, clientWantsUsage, maxEventBytes: 65_536, now: () => (clock += 1) });
    return { result, meter, output: client.writes.map((write) => write.text).join('') };
  };
  const cuts = (text: string): Buffer[][] => {
    const bytes = Buffer.from(text);
    const ways: Buffer[][] = [[bytes]];
    for (let cut = 1; cut < bytes.length; cut += 7) ways.push([bytes.subarray(0, cut), bytes.subarray(cut)]);
    return ways;
  };

  it('gives the client the same bytes and the meter the same usage for every cut', async () => {
    const text = chunk('') + chunk('Héllo') + withNullUsage(' wörld') + usageChunk(usage) + 'data: [DONE]\n\n';
    for (const reads of cuts(text)) {
      const { result, meter, output } = await run(reads);
      expect(result).toEqual({ kind: 'completed' });
      expect(output).toBe(chunk('') + chunk('Héllo') + withNullUsage(' wörld') + 'data: [DONE]\n\n');
      expect(meter.upstreamUsage?.output.total).toBe(4);
      expect(meter.firstTokenAt).toBe(1);
    }
  });

  it('counts the held text of a stream without usage, however it was cut', async () => {
    const text = chunk('Hello') + chunk(' there,') + chunk(' friend') + 'data: [DONE]\n\n';
    const { countTextTokens } = await import('../count-tokens.js');
    for (const reads of cuts(text)) {
      const { meter, output } = await run(reads);
      expect(output).toBe(text);
      expect(await meter.outputTally.total()).toBe(await countTextTokens('Hello there, friend'));
    }
  });

  it('re-frames what follows an event of another shape (a keep-alive comment, CRLF), as the full decoder reads it', async () => {
    const text = chunk('Hi') + ': keep-alive\r\n\r\n' + chunk('!').replace('\n\n', '\r\n\r\n') + usageChunk(usage) + 'data: [DONE]\r\n\r\n';
    for (const reads of cuts(text)) {
      const { meter, output } = await run(reads);
      expect(output).toBe(chunk('Hi') + chunk('!') + 'data: [DONE]\n\n');
      expect(meter.upstreamUsage?.output.total).toBe(4);
    }
  });
});

describe('mayCarryUsage', () => {
  it('is false only when every "usage" key is null, and true for anything else', async () => {
    const { mayCarryUsage } = await import('./pipe-openai-stream.js');
    expect(mayCarryUsage('{"choices":[],"usage":null}')).toBe(false);
    expect(mayCarryUsage('{"choices":[], "usage" : null}')).toBe(false);
    expect(mayCarryUsage('{"choices":[{"delta":{"content":"say \\"usage\\": {}"}}]}')).toBe(false);
    expect(mayCarryUsage('{"choices":[]}')).toBe(false);
    expect(mayCarryUsage('{"usage":{"prompt_tokens":1}}')).toBe(true);
    expect(mayCarryUsage('{"usage" : {"prompt_tokens":1}}')).toBe(true);
    expect(mayCarryUsage('{"usage":null,"x":{"usage":{"a":1}}}')).toBe(true);
    expect(mayCarryUsage('{"type":"usage","usage":{}}')).toBe(true);
  });
});

describe('mayCarryError', () => {
  it('is true for an error object anywhere in the chunk, false for a null or quoted one', async () => {
    const { mayCarryError } = await import('./pipe-openai-stream.js');
    expect(mayCarryError('{"error":{"message":"overloaded"}}')).toBe(true);
    expect(mayCarryError('{"id":"c","error" : {"code":"server_error"},"choices":[]}')).toBe(true);
    expect(mayCarryError('{"id":"c","error":null,"choices":[]}')).toBe(false);
    expect(mayCarryError('{"choices":[{"delta":{"content":"an \\"error\\": here"}}]}')).toBe(false);
  });
});

describe('pipeOpenaiStream, an upstream error chunk mid-answer', () => {
  const errorChunk = 'data: {"error":{"message":"Upstream overloaded","type":"server_error","param":null,"code":null}}\n\n';
  // OpenRouter's form: the error beside the chunk's other keys, with finish_reason "error".
  const besideChunk = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', error: { code: 'server_error', message: 'Provider disconnected' }, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }] })}\n\n`;
  const pipe = async (reads: string[]) => {
    const client = recordingReply();
    const meter = new UsageMeter();
    const result = await pipeOpenaiStream({ body: Readable.from(reads.map((read) => Buffer.from(read))), reply: client.reply, headers: {}, meter, clientWantsUsage: false, maxEventBytes: 65_536, now: () => 1 });
    return { result, meter, body: client.writes.map((write) => write.text).join('') };
  };

  it('records its message and ends the stream with it (no error of the gateway added), in its own read or with the text', async () => {
    for (const reads of [[chunk('Hi'), chunk(' there'), errorChunk], [chunk('Hi') + chunk(' there') + errorChunk]]) {
      const { result, meter, body } = await pipe(reads);
      expect(result).toEqual({ kind: 'completed' });
      expect(meter.interruption).toBe('upstream error mid-stream: Upstream overloaded');
      expect(body).toBe(chunk('Hi') + chunk(' there') + errorChunk);
    }
  });

  it('records it when [DONE] follows', async () => {
    const { meter, body } = await pipe([chunk('Hi'), errorChunk, 'data: [DONE]\n\n']);
    expect(meter.interruption).toBe('upstream error mid-stream: Upstream overloaded');
    expect(body).toBe(chunk('Hi') + errorChunk + 'data: [DONE]\n\n');
  });

  it('records an error carried beside the chunk\'s other keys', async () => {
    const { meter } = await pipe([chunk('Hi'), besideChunk, 'data: [DONE]\n\n']);
    expect(meter.interruption).toBe('upstream error mid-stream: Provider disconnected');
  });

  it('ends the stream with it when the connection then resets: no error of the gateway added', async () => {
    const client = recordingReply();
    const meter = new UsageMeter();
    const body = new PassThrough();
    const piped = pipeOpenaiStream({ body, reply: client.reply, headers: {}, meter, clientWantsUsage: false, maxEventBytes: 65_536, now: () => 1 });
    body.write(Buffer.from(chunk('Hi') + errorChunk));
    await new Promise((resolve) => setTimeout(resolve, 10));
    body.destroy(new Error('socket hang up'));
    expect((await piped).kind).toBe('interrupted');
    expect(meter.interruption).toBe('upstream error mid-stream: Upstream overloaded');
    expect(client.writes.map((write) => write.text).join('')).toBe(chunk('Hi') + errorChunk);
  });

  it('keeps a non-ASCII message whole', async () => {
    const { meter } = await pipe([chunk('Hi'), 'data: {"error":{"message":"Überlastet — 稍后重试"}}\n\n']);
    expect(meter.interruption).toBe('upstream error mid-stream: Überlastet — 稍后重试');
  });

  it('records it on the full decoder\'s path too (an upstream that names its events)', async () => {
    const { meter, body } = await pipe([`event: message\n${chunk('Hi')}`, errorChunk]);
    expect(meter.interruption).toBe('upstream error mid-stream: Upstream overloaded');
    expect(body.match(/"error"/g)).toHaveLength(1);
  });

  it('records it when other chunks follow it, in the same read or the next, and adds no error of its own when the body then ends', async () => {
    const usage = 'data: {"id":"c","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":9}}\n\n';
    for (const reads of [[chunk('Hi'), errorChunk + chunk(' there')], [chunk('Hi'), errorChunk, chunk(' there')], [chunk('Hi') + errorChunk + chunk(' there')], [`event: message\n${chunk('Hi')}`, errorChunk + chunk(' there')]]) {
      const { result, meter, body } = await pipe(reads);
      expect(result).toEqual({ kind: 'completed' });
      expect(meter.interruption).toBe('upstream error mid-stream: Upstream overloaded');
      expect(body.match(/"error"/g)).toHaveLength(1);
      expect(body.endsWith(chunk(' there'))).toBe(true);
    }
    const { meter, body } = await pipe([chunk('Hi'), errorChunk + usage + 'data: [DONE]\n\n']);
    expect(meter.interruption).toBe('upstream error mid-stream: Upstream overloaded');
    expect(meter.upstreamUsage?.output.total).toBe(9);
    expect(body).toBe(chunk('Hi') + errorChunk + 'data: [DONE]\n\n');
  });

  it('records an error beside the chunk\'s other keys when chunks follow it', async () => {
    const { meter } = await pipe([chunk('Hi'), besideChunk + chunk(''), 'data: [DONE]\n\n']);
    expect(meter.interruption).toBe('upstream error mid-stream: Provider disconnected');
  });

  it('records no error for text that quotes one, or a null error key', async () => {
    const quoting = `data: ${JSON.stringify({ id: 'c', choices: [{ index: 0, delta: { content: 'say "error": {"message":"x"}' } }] })}\n\n`;
    const { result, meter } = await pipe([chunk('Hi'), quoting + 'data: {"id":"c","error":null,"choices":[]}\n\n', 'data: [DONE]\n\n']);
    expect(result).toEqual({ kind: 'completed' });
    expect(meter.interruption).toBeUndefined();
  });
});

describe('pipeOpenaiStream, a client gone at the finish', () => {
  it('tells the meter the answer is produced once the last event read gave its finish_reason, and not before', async () => {
    const meter = new UsageMeter();
    const seen: boolean[] = [];
    const body = new PassThrough();
    const piped = pipeOpenaiStream({ body, reply: recordingReply().reply, headers: {}, meter, clientWantsUsage: true, singleChoice: true, maxEventBytes: 1 << 20, now: () => 1 });
    const step = async (frame: string) => {
      body.write(frame);
      await new Promise((resolve) => setImmediate(resolve));
      seen.push(meter.answerProduced());
    };
    await step('data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}],"usage":null}\n\n');
    await step('data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}\n\n');
    body.end('data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":9}}\n\ndata: [DONE]\n\n');
    await piped;
    expect(seen).toEqual([false, true]);
  });

  it('never tells it so for an answer of several choices (another may still be generating)', async () => {
    const meter = new UsageMeter();
    const body = new PassThrough();
    const piped = pipeOpenaiStream({ body, reply: recordingReply().reply, headers: {}, meter, clientWantsUsage: true, singleChoice: false, maxEventBytes: 1 << 20, now: () => 1 });
    body.write('data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}],"usage":null}\n\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(meter.answerProduced()).toBe(false);
    body.end('data: [DONE]\n\n');
    await piped;
  });
});
