import { addAudio, type NormalizedUsage } from '../../billing/normalized-usage.js';
import { TokenTally } from '../token-tally.js';
import { outputAudioTokensPerSecond } from './read-realtime-audio.js';

/**
 * What one Realtime response produced so far, counted locally for a response whose usage never comes (cut,
 * or a `response.done` without usage): its text (text, transcript and tool-call argument deltas) and the
 * audio of its audio deltas, as seconds — and the text a client put before it (`input`): the conversation
 * items it added since the response before, or the response's own input items.
 */
export class ResponseCount {
  readonly text = new TokenTally();
  readonly input = new TokenTally();
  private audioSeconds = 0;

  /** `bytesPerSecond`: the output audio format its `response.created` named, else the session's at each delta. */
  constructor(readonly bytesPerSecond: number | undefined = undefined) {}

  addAudio(bytes: number, bytesPerSecond: number): void {
    this.audioSeconds += bytes / bytesPerSecond;
  }

  /** The audio output tokens it produced, at OpenAI's rate, whole (a lower bound: a part-token is not billed). */
  get audioTokens(): number {
    // The sum of fractions of a second may land a hair below a whole token.
    return Math.floor(this.audioSeconds * outputAudioTokensPerSecond + 1e-6);
  }
}

/**
 * The locally counted usage of several counts together (one response's, with the deltas of no known
 * response): their text as output, their audio as audio output, and the client's text before them as
 * input — only when they produced some output: a response cut before it wrote anything may have been
 * stopped before the model read its input, and OpenAI then bills none of it.
 */
export async function usageOfCounts(counts: readonly ResponseCount[]): Promise<NormalizedUsage> {
  let text = 0;
  let audio = 0;
  let input = 0;
  for (const count of counts) {
    text += await count.text.total();
    audio += count.audioTokens;
  }
  if (text + audio > 0) for (const count of counts) input += await count.input.total();
  return addAudio({ input: { total: input, cacheRead: 0, cacheWrite: 0 }, output: { total: text + audio, reasoning: 0 } }, 0, audio);
}
