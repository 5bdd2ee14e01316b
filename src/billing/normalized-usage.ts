/**
 * Usage as every style reports it, normalized once (CONVENTIONS.md §6). `input.total` includes cache
 * reads and writes; `output.total` includes reasoning. The vendor's own object is kept in `raw`.
 * `input.cacheWrite1h` is the part of `cacheWrite` written to Anthropic's 1-hour cache (billed at its own
 * price); absent where the vendor has no such split. `input.audio` is the part of the plain input (neither
 * a cache read nor a write) that was audio, and `output.audio` the part of `output.total` that was audio:
 * both billed at the model's audio prices where it has them; absent where the vendor reports no audio.
 * `input.image` and `output.image` are the image parts, likewise (the model's image prices); a plain input
 * token is audio, image or text, never two of them.
 */
export interface NormalizedUsage {
  input: { total: number; cacheRead: number; cacheWrite: number; cacheWrite1h?: number; audio?: number; image?: number };
  output: { total: number; reasoning: number; audio?: number; image?: number };
  /** Web searches the upstream's server-side search tool ran (billed per search at the `webSearch` price); absent when none were reported. */
  webSearches?: number;
  /**
   * The tier OpenAI says served the answer (its `service_tier`: `default`, `flex`, `priority`…); absent
   * where the upstream does not say. `priority` is billed at the price's `priority` multiplier when the
   * price the request was admitted at carries one (only a request that asked for the tier is).
   */
  serviceTier?: string;
  raw?: unknown;
}

/**
 * Pure: `usage` with the tier an OpenAI answer says served it (its `service_tier`, when a string), unless
 * the usage already names one. Returns `usage` itself when nothing changes, else a copy.
 */
export function withServiceTier(usage: NormalizedUsage, tier: unknown): NormalizedUsage {
  return typeof tier !== 'string' || usage.serviceTier !== undefined ? usage : { ...usage, serviceTier: tier };
}

/** Where the numbers came from, recorded in the log. */
export type UsageSource = 'upstream' | 'local' | 'none';

export function emptyUsage(): NormalizedUsage {
  return { input: { total: 0, cacheRead: 0, cacheWrite: 0 }, output: { total: 0, reasoning: 0 } };
}

/**
 * Pure: `usage` with the audio shares a vendor reported, each clamped to what it is a part of (audio input
 * to the plain input, audio output to the output); zero shares are left out, so usage without audio keeps
 * its shape. Mutates and returns `usage`.
 */
export function addAudio(usage: NormalizedUsage, audioInput: number, audioOutput: number): NormalizedUsage {
  const plainInput = Math.max(0, usage.input.total - usage.input.cacheRead - usage.input.cacheWrite);
  const input = Math.min(audioInput, plainInput);
  const output = Math.min(audioOutput, usage.output.total);
  if (input > 0) usage.input.audio = input;
  if (output > 0) usage.output.audio = output;
  return usage;
}

/**
 * Pure: `usage` with the image shares a vendor reported, each clamped to what is left of its side once audio
 * is taken out (image input to the plain input, image output to the output); zero shares are left out.
 * Mutates and returns `usage`.
 */
export function addImages(usage: NormalizedUsage, imageInput: number, imageOutput: number): NormalizedUsage {
  const plainInput = Math.max(0, usage.input.total - usage.input.cacheRead - usage.input.cacheWrite);
  const input = Math.min(imageInput, plainInput - (usage.input.audio ?? 0));
  const output = Math.min(imageOutput, usage.output.total - (usage.output.audio ?? 0));
  if (input > 0) usage.input.image = input;
  if (output > 0) usage.output.image = output;
  return usage;
}

/** Pure: two usages added, every count (an optional share absent on both stays absent). */
export function sumUsage(a: NormalizedUsage, b: NormalizedUsage): NormalizedUsage {
  const sum: NormalizedUsage = {
    input: { total: a.input.total + b.input.total, cacheRead: a.input.cacheRead + b.input.cacheRead, cacheWrite: a.input.cacheWrite + b.input.cacheWrite },
    output: { total: a.output.total + b.output.total, reasoning: a.output.reasoning + b.output.reasoning },
  };
  const cacheWrite1h = share(a.input.cacheWrite1h, b.input.cacheWrite1h);
  const audioIn = share(a.input.audio, b.input.audio);
  const audioOut = share(a.output.audio, b.output.audio);
  const imageIn = share(a.input.image, b.input.image);
  const imageOut = share(a.output.image, b.output.image);
  if (cacheWrite1h !== undefined) sum.input.cacheWrite1h = cacheWrite1h;
  if (audioIn !== undefined) sum.input.audio = audioIn;
  if (audioOut !== undefined) sum.output.audio = audioOut;
  if (imageIn !== undefined) sum.input.image = imageIn;
  if (imageOut !== undefined) sum.output.image = imageOut;
  const webSearches = share(a.webSearches, b.webSearches);
  if (webSearches !== undefined) sum.webSearches = webSearches;
  return sum;
}

function share(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
}
