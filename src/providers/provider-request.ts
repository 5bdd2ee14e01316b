/** Where and how to send one upstream call: built by a provider from the channel, the key and the model. */
export interface ProviderRequestInput {
  baseUrl: string;
  key: string;
  upstreamModel: string;
  stream: boolean;
  /** The client's headers, for the few a provider forwards (anthropic-version, anthropic-beta). */
  clientHeaders: Record<string, string | string[] | undefined>;
}

export interface ProviderRequest {
  url: string;
  headers: Record<string, string>;
}

/** The text-generation wire style a channel type speaks upstream. */
export type UpstreamTextStyle = 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini';
