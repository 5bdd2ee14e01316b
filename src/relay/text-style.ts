import type { CanonicalRequest } from '../canonical/canonical-request.js';
import type { CanonicalResponse } from '../canonical/canonical-response.js';
import type { ConversionContext, Converted, FormattedRequest, FormatRequestOptions, InvalidWireRequest, StreamDecoder, StreamEncoder } from '../canonical/conversion.js';

/** The text-generation styles a client may speak. */
export type TextStyleName = 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini';

/** One style's six pure converters (src/convert/<style>/), seen through one interface. */
export interface TextStyleConverters {
  parseRequest(body: unknown): Converted<CanonicalRequest> | InvalidWireRequest;
  formatRequest(request: CanonicalRequest, upstreamModel: string, options?: FormatRequestOptions): FormattedRequest;
  parseResponse(body: unknown): Converted<CanonicalResponse>;
  formatResponse(response: CanonicalResponse, context: ConversionContext): Converted<Record<string, unknown>>;
  createDecoder(): StreamDecoder;
  createEncoder(context: ConversionContext, options: { includeUsage: boolean }): StreamEncoder;
  /** An error event on its own, for a relayed (same-style) stream the gateway must end mid-answer. */
  encodeStreamError(message: string, code: string | undefined): string;
  /**
   * A style whose upstream is always streamed (Gemini): the streamed answer's events, parsed, merged into
   * the whole answer a non-streaming client of the same style gets, field for field.
   */
  mergeStreamEvents?(events: readonly unknown[]): Record<string, unknown>;
}
