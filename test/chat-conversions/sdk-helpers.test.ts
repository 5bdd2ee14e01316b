/**
 * The openai SDK's Chat helpers — `chat.completions.parse()` with `zodResponseFormat`, `runTools()` with
 * `zodFunction` — against each converted upstream (Responses, Anthropic, Gemini), with the charge of every
 * request (expectedCharge) and what the upstream was sent (the schema the helper generates).
 */
import { Type } from '@google/genai';
import OpenAI from 'openai';
import { zodFunction, zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { errorReply, replyFor, responsesWhole, type WireStyle } from '../fakes/scripted-vendor-wire.js';

const converted: WireStyle[] = ['openai-responses', 'anthropic', 'gemini'];

const Place = z.object({ name: z.string(), country: z.string().nullable() });
const Trip = z.object({ home: Place, work: Place, tags: z.array(z.enum(['a', 'b'])) });
const tripJson = JSON.stringify({ home: { name: 'Oslo', country: 'NO' }, work: { name: 'Bergen', country: null }, tags: ['a'] });

/** The schema the upstream received for the answer's format, in its own field. */
function sentSchema(style: WireStyle, body: any): any {
  switch (style) {
    case 'openai-responses':
      return body.text?.format?.schema;
    case 'anthropic':
      return body.output_config?.format?.schema;
    case 'gemini':
      return body.generationConfig?.responseJsonSchema;
    default:
      return undefined;
  }
}

/** Every node of a schema that is an object type. */
function objectNodes(node: unknown, out: any[] = []): any[] {
  if (Array.isArray(node)) for (const child of node) objectNodes(child, out);
  else if (node !== null && typeof node === 'object') {
    if ((node as { type?: unknown }).type === 'object') out.push(node);
    for (const value of Object.values(node)) objectNodes(value, out);
  }
  return out;
}

/** Every `$ref` of a schema, with the object it sits in. */
function refsOf(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const child of node) refsOf(child, out);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push(value);
      else refsOf(value, out);
    }
  }
  return out;
}

describe('Chat SDK helpers → converted upstreams', () => {
  let fixture: BillingFixture;
  beforeAll(async () => {
    fixture = await startBillingFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  const spent = (run: () => Promise<unknown>) => fixture.spent(run);

  describe.each(converted)('→ %s', (style) => {
    const model = modelOf[style];

    it('chat.completions.parse() with zodResponseFormat: parsed object, schema carried, billed per the formula', async () => {
      fixture.primary[style].enqueue(replyFor(style, { text: tripJson, usage: { input: 60, output: 30 } }, false));
      let completion!: Awaited<ReturnType<OpenAI['chat']['completions']['parse']>>;
      const charge = await spent(async () => {
        completion = await fixture.sdk.openai.chat.completions.parse({ model, messages: [{ role: 'user', content: 'Plan a trip' }], response_format: zodResponseFormat(Trip, 'trip') });
      });
      expect(completion.choices[0]!.message.parsed).toEqual(JSON.parse(tripJson));
      expect(sentSchema(style, fixture.primary[style].requests.at(-1)!.body)).toBeDefined();
      expect(charge).toBe(expectedCharge({ input: 60, output: 30 }));
    });

    it('chat.completions.stream() with zodResponseFormat: finalChatCompletion() has the parsed object', async () => {
      fixture.primary[style].enqueue(replyFor(style, { text: tripJson, usage: { input: 60, output: 30 } }, true));
      const stream = fixture.sdk.openai.chat.completions.stream({ model, messages: [{ role: 'user', content: 'Plan a trip' }], response_format: zodResponseFormat(Trip, 'trip') });
      const final = await stream.finalChatCompletion();
      expect(final.choices[0]!.message.parsed).toEqual(JSON.parse(tripJson));
    });

    it('runTools() with zodFunction: the tool runs, its result goes back, the final answer arrives; both requests billed', async () => {
      fixture.primary[style].enqueue(
        replyFor(style, { tools: [{ id: 'call_w1', name: 'get_weather', args: '{"city":"Oslo"}' }], stop: 'tool', usage: { input: 50, output: 10 } }, false),
        replyFor(style, { text: 'It is 7 degrees in Oslo.', usage: { input: 80, output: 9 } }, false),
      );
      const calls: unknown[] = [];
      let content: string | null = null;
      const charge = await spent(async () => {
        const runner = fixture.sdk.openai.chat.completions.runTools({
          model,
          messages: [{ role: 'user', content: 'Weather in Oslo?' }],
          tools: [
            zodFunction({
              name: 'get_weather',
              parameters: z.object({ city: z.string() }),
              function: (args: { city: string }) => {
                calls.push(args);
                return { city: args.city, celsius: 7 };
              },
            }),
          ],
        });
        content = await runner.finalContent();
      });
      expect(calls).toEqual([{ city: 'Oslo' }]);
      expect(content).toBe('It is 7 degrees in Oslo.');
      const second = JSON.stringify(fixture.primary[style].requests.at(-1)!.body);
      expect(second).toContain('celsius');
      expect(charge).toBe(expectedCharge({ input: 50, output: 10 }) + expectedCharge({ input: 80, output: 9 }));
    });
  });

  it('→ gemini: the schema zodResponseFormat generates (`definitions` + `#/definitions/…` refs, OpenAPI `nullable`) reaches responseJsonSchema in the JSON Schema subset Gemini reads ($defs, type lists)', async () => {
    fixture.primary.gemini.enqueue(replyFor('gemini', { text: tripJson, usage: { input: 60, output: 30 } }, true));
    await fixture.sdk.openai.chat.completions.parse({ model: modelOf.gemini, messages: [{ role: 'user', content: 'Plan a trip' }], response_format: zodResponseFormat(Trip, 'trip') });
    const schema = sentSchema('gemini', fixture.primary.gemini.requests.at(-1)!.body);
    // responseJsonSchema supports $id, $defs, $ref, $anchor, type, format, title, description, enum, items,
    // prefixItems, min/maxItems, minimum, maximum, anyOf, oneOf, properties, additionalProperties, required
    // (ai.google.dev GenerationConfig.responseJsonSchema): neither `definitions` nor OpenAPI's `nullable`.
    for (const ref of refsOf(schema)) {
      expect(ref).toMatch(/^#\/\$defs\//);
      expect(schema.$defs?.[ref.slice('#/$defs/'.length)]).toBeDefined();
    }
    expect(JSON.stringify(schema)).not.toContain('"nullable"');
    expect(JSON.stringify(schema.properties.home.properties.country)).toContain('null');
  });

  it('→ anthropic: a schema with constraints Anthropic refuses (bounds, lengths, array sizes) reaches output_config in the subset it takes, the constraints in descriptions', async () => {
    const Review = z.object({ score: z.number().int().min(1).max(10), summary: z.string().min(1).max(280), tags: z.array(z.string()).min(2).max(5), place: Place });
    const reviewJson = JSON.stringify({ score: 7, summary: 'Good.', tags: ['a', 'b'], place: { name: 'Oslo', country: null } });
    fixture.primary.anthropic.enqueue(replyFor('anthropic', { text: reviewJson, usage: { input: 60, output: 30 } }, false));
    const completion = await fixture.sdk.openai.chat.completions.parse({ model: modelOf.anthropic, messages: [{ role: 'user', content: 'Review it' }], response_format: zodResponseFormat(Review, 'review') });
    expect(completion.choices[0]!.message.parsed).toEqual(JSON.parse(reviewJson));
    const schema = sentSchema('anthropic', fixture.primary.anthropic.requests.at(-1)!.body);
    // Anthropic's structured outputs refuse these with a 400 (docs: structured outputs, "JSON Schema limitations").
    expect(JSON.stringify(schema)).not.toMatch(/"(minimum|maximum|exclusiveMinimum|exclusiveMaximum|minLength|maxLength|maxItems|\$schema|nullable)"/);
    expect(schema.properties.tags.minItems).toBeUndefined();
    expect(schema.properties.score.description).toContain('maximum: 10');
    expect(schema.properties.summary.description).toContain('maxLength: 280');
    expect(schema.properties.tags.description).toContain('minItems: 2');
    for (const node of objectNodes(schema)) expect(node.additionalProperties).toBe(false);
  });

  it('→ anthropic from a Gemini client: an OpenAPI responseSchema (nullable, minimum) reaches output_config as JSON Schema Anthropic takes', async () => {
    fixture.primary.anthropic.enqueue(replyFor('anthropic', { text: '{"n":3,"note":null}', usage: { input: 20, output: 8 } }, false));
    const responseSchema = { type: Type.OBJECT, properties: { n: { type: Type.INTEGER, minimum: 1 }, note: { type: Type.STRING, nullable: true } }, required: ['n', 'note'] };
    const answer = await fixture.sdk.gemini.models.generateContent({ model: modelOf.anthropic, contents: 'Count', config: { responseMimeType: 'application/json', responseSchema } });
    expect(JSON.parse(answer.text ?? '')).toEqual({ n: 3, note: null });
    expect(sentSchema('anthropic', fixture.primary.anthropic.requests.at(-1)!.body)).toEqual({
      type: 'object',
      properties: { n: { type: 'integer', description: '{minimum: 1}' }, note: { type: ['string', 'null'] } },
      required: ['n', 'note'],
      additionalProperties: false,
    });
  });

  // From the schema audit: @google/genai types int64 limits as strings, and a nullable enum must still admit null.
  it('→ anthropic from a Gemini client: minItems written as a string is moved, and a nullable enum keeps null as an answer', async () => {
    fixture.primary.anthropic.enqueue(replyFor('anthropic', { text: '{"tags":["a","b"],"color":null}', usage: { input: 20, output: 8 } }, false));
    const responseSchema = {
      type: Type.OBJECT,
      properties: { tags: { type: Type.ARRAY, items: { type: Type.STRING }, minItems: '2' }, color: { type: Type.STRING, enum: ['red', 'blue'], nullable: true } },
      required: ['tags', 'color'],
    };
    const answer = await fixture.sdk.gemini.models.generateContent({ model: modelOf.anthropic, contents: 'Tags', config: { responseMimeType: 'application/json', responseSchema } });
    expect(JSON.parse(answer.text ?? '')).toEqual({ tags: ['a', 'b'], color: null });
    const sent = sentSchema('anthropic', fixture.primary.anthropic.requests.at(-1)!.body);
    expect(sent.properties.tags).toEqual({ type: 'array', items: { type: 'string' }, description: '{minItems: 2}' });
    expect(sent.properties.color).toEqual({ type: ['string', 'null'], enum: ['red', 'blue', null] });
  });

  it('→ anthropic: a retried request logs the schema warnings once', async () => {
    const fallbackFixture = await startBillingFixture({ fallbacks: true });
    try {
      fallbackFixture.primary.anthropic.enqueue(errorReply('anthropic', 500, 'boom'));
      fallbackFixture.fallback!.anthropic.enqueue(replyFor('anthropic', { text: '{"n":2}', usage: { input: 10, output: 3 } }, false));
      await fallbackFixture.sdk.openai.chat.completions.parse({ model: modelOf.anthropic, messages: [{ role: 'user', content: 'n' }], response_format: zodResponseFormat(z.object({ n: z.number().min(1) }), 'n') });
      const warnings = JSON.parse((await fallbackFixture.logs()).at(-1).warnings) as string[];
      expect(warnings.filter((warning) => warning.startsWith('output schema: minimum moved'))).toHaveLength(1);
    } finally {
      await fallbackFixture.close();
    }
  });

  it('→ responses: a refusal answer to parse(): the SDK reports message.refusal (parsed null), not a JSON SyntaxError', async () => {
    const reply = responsesWhole({ text: 'x', usage: { input: 5, output: 5 } });
    const message = (reply.json as any).output.find((item: any) => item.type === 'message');
    message.content = [{ type: 'refusal', refusal: "I'm sorry, I can't help with that." }];
    fixture.primary['openai-responses'].enqueue(reply);
    const outcome = await fixture.sdk.openai.chat.completions
      .parse({ model: modelOf['openai-responses'], messages: [{ role: 'user', content: 'Plan a trip' }], response_format: zodResponseFormat(Trip, 'trip') })
      .then(
        (completion) => ({ completion, error: undefined }),
        (error: unknown) => ({ completion: undefined, error }),
      );
    expect(outcome.error).toBeUndefined();
    expect(outcome.completion?.choices[0]!.message.refusal).toBe("I'm sorry, I can't help with that.");
    expect(outcome.completion?.choices[0]!.message.parsed).toBeNull();
  });
});
