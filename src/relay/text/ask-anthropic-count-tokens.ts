import { GatewayError } from '../../errors/gateway-error.js';
import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { buildAnthropicCountTokensRequest } from '../../providers/anthropic/build-anthropic-count-tokens-request.js';
import { resolveModelMapping } from '../../routing/resolve-model-mapping.js';
import { selectChannel, type ChannelQuery } from '../../routing/select-channel.js';
import { readBoundedBody } from '../read-bounded-body.js';
import { redactSecret } from '../redact-secret.js';
import { saysChannelOutOfCredit } from '../says-channel-out-of-credit.js';
import type { RelayServices } from '../relay-services.js';

/** A count is `{"input_tokens": N}`: a larger answer is not one (and is not held). */
const maxCountAnswerBytes = 64 * 1024;
const countCallTimeoutMs = 60_000;

export interface CountTokensInput {
  /** The Anthropic channels that may count: the caller's group (or pin) and model, `channelTypes` anthropic. */
  query: Omit<ChannelQuery, 'excluded' | 'coolingDown'>;
  body: Record<string, unknown>;
  /** The client's bytes, sent as they are when the channel maps no model. */
  rawBody: Buffer | undefined;
  /** The client's headers: `anthropic-version` and `anthropic-beta` are forwarded. */
  clientHeaders: Record<string, string | string[] | undefined>;
}

/** An upstream's answer to relay: its status and text (the channel's key masked), and who gave it. */
export interface CountTokensAnswer {
  channel: ChannelRecord;
  upstreamModel: string;
  status: number;
  text: string;
  retryAfter?: string;
}

/**
 * Asks the Anthropic channels in the relay's order (priority, weight, cooling-down last), at most
 * `retry_times` + 1 of them, until one gives an answer to relay: a connection failure, a 429, a 5xx or a
 * rejected channel key (401, 403) moves to the next. The channel's health is left alone: Anthropic limits
 * count_tokens apart from Messages, so its failures say nothing of the channel's Messages. When none
 * answers, the last answer is relayed (a 401/403 as 502: the client's own key was fine), else a 502.
 */
export async function askAnthropicCountTokens(services: RelayServices, input: CountTokensInput): Promise<CountTokensAnswer> {
  const excluded = new Set<number>();
  let last: CountTokensAnswer | undefined;
  let failure = 'no answer';
  const tries = services.catalog.snapshot.settings.retryTimes + 1;
  for (let tried = 0; tried < tries; tried += 1) {
    const channel = selectChannel(services.catalog.snapshot.channels, { ...input.query, excluded, coolingDown: services.health.coolingDown(services.now()) }, services.random);
    if (channel === undefined) break;
    excluded.add(channel.id);
    const mapping = resolveModelMapping(channel.modelMapping, String(input.body.model));
    const key = services.health.pickKey(channel);
    if (!mapping.ok || key === undefined) {
      failure = mapping.ok ? `every key of channel ${channel.id} is set aside` : `model_mapping of channel ${channel.id} loops`;
      continue;
    }
    const { upstreamModel } = mapping;
    const target = buildAnthropicCountTokensRequest({ baseUrl: channel.baseUrl, key, upstreamModel, clientHeaders: input.clientHeaders });
    const body = input.body.model === upstreamModel && input.rawBody !== undefined ? input.rawBody : JSON.stringify({ ...input.body, model: upstreamModel });
    const sent = await services.upstream.send({ url: target.url, method: 'POST', headers: target.headers, body, signal: AbortSignal.timeout(countCallTimeoutMs) });
    if (!sent.ok) {
      failure = sent.failure.message;
      continue;
    }
    const read = await readBoundedBody(sent.response.body, maxCountAnswerBytes).catch(() => undefined);
    if (read === undefined || !read.whole) {
      failure = `the answer was larger than ${maxCountAnswerBytes} bytes, or was cut`;
      continue;
    }
    const status = sent.response.statusCode;
    last = { channel, upstreamModel, status, text: redactSecret(read.bytes.toString('utf8'), key), ...(sent.response.retryAfter === undefined ? {} : { retryAfter: sent.response.retryAfter }) };
    if (!(status === 429 || status >= 500 || status === 401 || status === 403 || saysChannelOutOfCredit(status, last.text))) return last;
  }
  if (last === undefined) throw new GatewayError('upstream_error', `No Anthropic channel could count the tokens: ${failure}.`);
  if (last.status === 401 || last.status === 403) throw new GatewayError('upstream_credentials_refused', `The Anthropic channel refused its credentials (HTTP ${last.status}).`);
  // Anthropic's "Your credit balance is too low" is a 400 the client would read as its own balance run out.
  if (saysChannelOutOfCredit(last.status, last.text)) throw new GatewayError('upstream_out_of_credit', `The Anthropic channel's account is out of credit or disabled (HTTP ${last.status}). Your API key and balance are not at fault.`);
  return last;
}
