import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { UpstreamRequest } from '../../providers/upstream-client.js';
import type { ChunkSource } from '../read-body-chunks.js';
import { readBoundedBody } from '../read-bounded-body.js';
import { readUpstreamErrorBody } from '../read-upstream-error.js';
import { saysChannelOutOfCredit } from '../says-channel-out-of-credit.js';
import { channelCredentialsRefused } from '../channel-credentials-refused.js';
import { redactSecret } from '../redact-secret.js';
import type { RelayServices } from '../relay-services.js';

const assetCallTimeoutMs = 60_000;

/** What is asked, for the errors, and the largest answer it can give (a larger one is not held). */
export interface AskedService {
  /** `asset service`: "The asset service could not answer …". */
  name: string;
  /** The 503 when the caller reaches no channel of it. */
  noChannel: string;
  maxAnswerBytes: number;
}

/** An asset record is a few hundred bytes: a larger answer is not one (and is not held). */
const assetService: AskedService = { name: 'asset service', noChannel: 'No channel of your group serves Seedance assets.', maxAnswerBytes: 256 * 1024 };

/** An upstream's answer to relay: its status and text (the channel's key masked), and who gave it. */
export interface AssetAnswer {
  channel: ChannelRecord;
  key: string;
  status: number;
  text: string;
}

/**
 * Asks the asset channels in turn (at most `retry_times` + 1 of them), each with `keyOf(channel)`, until
 * one gives an answer to relay: a connection failure, an answer too large to be an asset record, a 429, a
 * 5xx or a rejected channel key (401, 403) moves to the next channel. When none answers, the last answer
 * of an HTTP status is relayed (a 401/403 as a 502 in the gateway's words: the client's own key was fine,
 * the upstream's message goes to the log), else a 502; with no
 * channel at all, a 503.
 */
export async function askAssetChannels(
  services: RelayServices,
  channels: readonly ChannelRecord[],
  keyOf: (channel: ChannelRecord) => string | undefined,
  build: (channel: ChannelRecord, key: string, signal: AbortSignal) => UpstreamRequest,
  service: AskedService = assetService,
): Promise<AssetAnswer> {
  if (channels.length === 0) throw new GatewayError('no_available_channel', service.noChannel);
  let last: AssetAnswer | undefined;
  let failure = 'no answer';
  for (const channel of channels.slice(0, services.catalog.snapshot.settings.retryTimes + 1)) {
    const key = keyOf(channel);
    if (key === undefined) continue;
    const sent = await services.upstream.send(build(channel, key, AbortSignal.timeout(assetCallTimeoutMs)));
    if (!sent.ok) {
      failure = sent.failure.message;
      continue;
    }
    const text = await readAnswer(sent.response.body, service.maxAnswerBytes);
    if (text === undefined) {
      failure = `the answer was larger than ${service.maxAnswerBytes} bytes, or was cut`;
      continue;
    }
    const status = sent.response.statusCode;
    last = { channel, key, status, text: redactSecret(text, key) };
    if (!(status === 429 || status >= 500 || status === 401 || status === 403 || saysChannelOutOfCredit(status, last.text))) return last;
  }
  if (last === undefined) throw new GatewayError('upstream_error', `The ${service.name} could not answer: ${failure}.`);
  // Its message (the key in it masked) is the log's, never the client's: it may name the channel's account.
  if (last.status === 401 || last.status === 403) throw channelCredentialsRefused(service.name, last.status, { logDetail: readUpstreamErrorBody(last.text, last.status).message });
  if (saysChannelOutOfCredit(last.status, last.text)) throw new GatewayError('upstream_out_of_credit', `The ${service.name}'s channel account is out of credit or disabled (HTTP ${last.status}). Your API key and balance are not at fault.`);
  return last;
}

/** The whole answer as text, or undefined when it is larger than the service's answers can be or breaks off. */
function readAnswer(body: ChunkSource, maxAnswerBytes: number): Promise<string | undefined> {
  return readBoundedBody(body, maxAnswerBytes).then(
    ({ bytes, whole }) => (whole ? bytes.toString('utf8') : undefined),
    () => undefined,
  );
}
