import type { UpstreamTextStyle } from '../providers/provider-request.js';

/**
 * The largest event a stream of `style` may carry: the stream bound, but for Gemini, which sends a generated
 * image whole in one event (a 4K image is more than 8 MiB of base64), the bound of a whole answer.
 */
export function eventBoundFor(style: UpstreamTextStyle, streamEventBytes: number, wholeAnswerBytes: number): number {
  return style === 'gemini' ? Math.max(streamEventBytes, wholeAnswerBytes) : streamEventBytes;
}
