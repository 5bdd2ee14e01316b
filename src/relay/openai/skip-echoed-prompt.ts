/**
 * Legacy Completions `echo: true`: each choice's text starts with the prompt it completes, which is input,
 * not output. A local count of the output (an upstream that reports no usage) leaves it out.
 */

/** The prompt echoed at the head of choice `index`, when it is known as text. */
export type EchoedPrompt = (index: number) => string | undefined;

/**
 * Pure: the prompts a Completions body echoes, per choice; undefined without `echo: true`. Choices come
 * `n` per prompt, prompt by prompt (OpenAI returns `n` of the `best_of` made). A prompt given as token
 * ids comes back as text the gateway cannot match without the upstream's tokenizer: not skipped.
 */
export function echoedPromptOf(body: Record<string, unknown>): EchoedPrompt | undefined {
  if (body.echo !== true) return undefined;
  const { prompt } = body;
  if (typeof prompt === 'string') return () => prompt;
  if (!Array.isArray(prompt)) return undefined;
  const perPrompt = typeof body.n === 'number' && body.n >= 1 ? Math.floor(body.n) : 1;
  return (index) => {
    const echoed: unknown = prompt[Math.floor(index / perPrompt)];
    return typeof echoed === 'string' ? echoed : undefined;
  };
}

/** Pure: a whole choice's text without its echoed prompt (as it came when it does not start with it). */
export function skipEchoedPrompt(text: string, echoed: string | undefined): string {
  return echoed !== undefined && text.startsWith(echoed) ? text.slice(echoed.length) : text;
}

/**
 * For a stream: the prompt arrives as the first deltas of each choice, split anyhow. Each delta is
 * matched against what is still to come of its choice's prompt; the first delta that does not match ends
 * the skipping for that choice.
 */
export function createEchoedPromptSkipper(echoedPrompt: EchoedPrompt): (index: number, text: string) => string {
  const consumed = new Map<number, number>();
  return (index, text) => {
    const echoed = echoedPrompt(index);
    const at = consumed.get(index) ?? 0;
    if (echoed === undefined || at >= echoed.length) return text;
    const rest = echoed.length - at;
    if (text.length <= rest) {
      if (echoed.startsWith(text, at)) {
        consumed.set(index, at + text.length);
        return '';
      }
    } else if (text.startsWith(echoed.slice(at))) {
      consumed.set(index, echoed.length);
      return text.slice(rest);
    }
    consumed.set(index, echoed.length);
    return text;
  };
}
