import type { Content, GenerateContentResponse } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { models, startCrossStyleFixture, type CrossStyleFixture } from '../relay/cross-style-setup.js';

/**
 * A @google/genai client's tool loop on a Claude channel with thinking on. Anthropic refuses a replayed
 * thinking block whose text differs in any way from what it returned (400 "Invalid `signature` in
 * `thinking` block"; the fake Anthropic upstream refuses it the same way), and a Gemini client holds
 * Claude's thinking only as a `thought` part — none without includeThoughts — which it may hand back
 * merged or changed. The thought signature the gateway gives carries the signed text, so turn 2 reaches
 * Claude with its thinking block exactly as issued, whatever thought text the client replays (it was
 * refused at every second turn without includeThoughts, and whenever the replayed text differed).
 */
let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
  fixture.anthropicUpstream.setOptions({ thinking: true });
});
afterAll(async () => fixture?.close());

const tools = [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather of a city', parametersJsonSchema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } }] }];
const question: Content = { role: 'user', parts: [{ text: 'Weather in Paris?' }] };

/** Turn 1 (whole or streamed) and the model turn the client holds: the parts of every chunk, in order. */
async function firstTurn(includeThoughts: boolean, streamed: boolean): Promise<Content> {
  const config = { tools, thinkingConfig: { thinkingBudget: 1024, includeThoughts } };
  const request = { model: models.anthropic, contents: [question], config };
  const responses: GenerateContentResponse[] = [];
  if (streamed) for await (const chunk of await fixture.gemini.models.generateContentStream(request)) responses.push(chunk);
  else responses.push(await fixture.gemini.models.generateContent(request));
  return { role: 'model', parts: responses.flatMap((response) => response.candidates?.[0]?.content?.parts ?? []) };
}

/** Turn 2: the history with the call's result; the answer's text. */
async function secondTurn(modelTurn: Content, includeThoughts: boolean, streamed: boolean): Promise<string> {
  const call = modelTurn.parts!.find((part) => part.functionCall !== undefined)!.functionCall!;
  const contents = [question, modelTurn, { role: 'user', parts: [{ functionResponse: { id: call.id, name: call.name, response: { output: 'Sunny, 21 °C' } } }] }];
  const request = { model: models.anthropic, contents, config: { tools, thinkingConfig: { thinkingBudget: 1024, includeThoughts } } };
  if (!streamed) return (await fixture.gemini.models.generateContent(request)).text ?? '';
  let text = '';
  for await (const chunk of await fixture.gemini.models.generateContentStream(request)) text += chunk.text ?? '';
  return text;
}

/** The thinking block turn 2 sent Claude, and the signature Claude gave (carried in the call's thoughtSignature). */
function replayedThinking(modelTurn: Content): { block: unknown; issuedSignature: string } {
  const carried = modelTurn.parts!.find((part) => part.functionCall !== undefined)?.thoughtSignature ?? '';
  return { block: fixture.anthropicUpstream.requests.at(-1)!.body.messages[1].content[0], issuedSignature: carried.split(':')[2] ?? '' };
}

const thinkingText = 'The user greeted me. A short, friendly answer fits.';

describe('Claude thinking in a @google/genai tool loop reaches Claude as issued', () => {
  describe.each([
    ['whole', false],
    ['streamed', true],
  ] as const)('%s', (_framing, streamed) => {
    it.each([false, true])('includeThoughts %s: turn 2 is answered, its thinking block as Claude gave it', async (includeThoughts) => {
      const modelTurn = await firstTurn(includeThoughts, streamed);
      const thoughts = modelTurn.parts!.filter((part) => part.thought === true).map((part) => part.text).join('');
      expect(thoughts).toBe(includeThoughts ? thinkingText : '');
      expect(modelTurn.parts!.find((part) => part.functionCall !== undefined)?.thoughtSignature).toMatch(/^thinking:anthropic:/);

      expect(await secondTurn(modelTurn, includeThoughts, streamed)).toBe('Hello from the fake upstream!');
      const { block, issuedSignature } = replayedThinking(modelTurn);
      expect(block).toEqual({ type: 'thinking', thinking: thinkingText, signature: issuedSignature });
    });
  });

  it('a client that hands its thought text back changed (merged, trimmed) still gets turn 2 answered', async () => {
    const modelTurn = await firstTurn(true, true);
    const parts = modelTurn.parts!.filter((part) => part.thought !== true);
    const edited: Content = { role: 'model', parts: [{ text: `${thinkingText.trim()}\n`, thought: true }, ...parts] };
    expect(await secondTurn(edited, true, false)).toBe('Hello from the fake upstream!');
    const { block, issuedSignature } = replayedThinking(edited);
    expect(block).toEqual({ type: 'thinking', thinking: thinkingText, signature: issuedSignature });
  });
});
