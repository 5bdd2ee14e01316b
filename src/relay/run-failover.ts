import type { ChannelRecord } from '../catalog/catalog-records.js';
import { classifyUpstreamFailure, failureDetail, type UpstreamFailure } from '../routing/classify-upstream-failure.js';
import { selectChannel, type ChannelQuery } from '../routing/select-channel.js';
import { findKeyByFingerprint } from '../tasks/key-fingerprint.js';
import type { UpstreamErrorBody } from './read-upstream-error.js';
import type { RelayServices } from './relay-services.js';

export interface AttemptRecord {
  channel_id: number;
  status: number | null;
  latency_ms: number;
  error?: string;
}

/** One try on one channel: served (bytes reached the client or the answer is complete), or failed. */
export type AttemptOutcome<T> =
  | { kind: 'served'; value: T; status: number }
  | {
      kind: 'failed';
      failure: UpstreamFailure;
      errorBody?: UpstreamErrorBody;
      /**
       * The upstream answered (2xx) and produced output before failing in-band, unseen by the client: if no
       * later attempt serves, that output is still billed (prompt + produced text), as for a served answer.
       */
      upstreamAnswered?: boolean;
    };

export type FailoverResult<T> =
  | { kind: 'served'; value: T; channel: ChannelRecord; attempts: AttemptRecord[] }
  /** The request itself was refused upstream (400, 404, 422 …): goes straight back to the client. */
  | { kind: 'rejected'; failure: UpstreamFailure; errorBody?: UpstreamErrorBody; channel: ChannelRecord; attempts: AttemptRecord[] }
  /** Every channel tried failed, or the retry budget ran out. */
  | { kind: 'exhausted'; failure: UpstreamFailure; errorBody?: UpstreamErrorBody; channel: ChannelRecord; attempts: AttemptRecord[] }
  | { kind: 'no_channel' };

export interface FailoverInput<T> {
  query: Omit<ChannelQuery, 'excluded' | 'coolingDown'>;
  /**
   * The key (by fingerprint) the preferred channel is called with while it is not set aside: the one whose
   * account holds the stored response the request continues. Else, as for every channel, the next in turn.
   */
  preferredKeyFingerprint?: string | undefined;
  retryTimes: number;
  /** Stops trying (the client went away); a failure seen after that is not held against the channel. */
  shouldStop(): boolean;
  attempt(channel: ChannelRecord, key: string): Promise<AttemptOutcome<T>>;
}

/**
 * The failover loop (issue #3): a different channel on every try — never one already tried, except with
 * another key after its key was rejected —, falling to lower priorities, up to the retry budget. Nothing is retried once the client has bytes: an attempt
 * that has written to the client reports `served`, whatever happened after.
 */
export async function runFailover<T>(services: RelayServices, input: FailoverInput<T>): Promise<FailoverResult<T>> {
  const excluded = new Set<number>();
  const attempts: AttemptRecord[] = [];
  let last: { failure: UpstreamFailure; errorBody?: UpstreamErrorBody; channel: ChannelRecord } | undefined;
  // A pinned request (`sk-…-<id>`, a task's continuation) has one candidate channel, which `excluded` stops
  // being tried twice; the budget still lets it try that channel's next key after a rejected one.
  const maxAttempts = input.retryTimes + 1;

  while (attempts.length < maxAttempts) {
    const channel = selectChannel(services.catalog.snapshot.channels, { excluded, coolingDown: services.health.coolingDown(services.now()), ...input.query }, services.random);
    if (channel === undefined) break;
    excluded.add(channel.id);
    const key = keyFor(services, channel, input);
    if (key === undefined) {
      last = { failure: { kind: 'status', status: 401, message: 'Every key of this channel has been rejected.' }, channel };
      continue;
    }
    const startedAt = services.now();
    const outcome = await input.attempt(channel, key);
    const latency = services.now() - startedAt;
    if (outcome.kind === 'served') {
      services.health.recordSuccess(channel.id);
      attempts.push({ channel_id: channel.id, status: outcome.status, latency_ms: latency });
      return { kind: 'served', value: outcome.value, channel, attempts };
    }
    const { failure } = outcome;
    attempts.push({ channel_id: channel.id, status: failure.kind === 'status' ? failure.status : null, latency_ms: latency, error: failureDetail(failure).slice(0, 300) });
    last = { failure, channel, ...(outcome.errorBody === undefined ? {} : { errorBody: outcome.errorBody }) };
    // The client left: the gateway aborted the call itself (a "connection" failure), which says nothing of
    // the channel — no cooldown, no key set aside, nothing disabled, and no other channel tried.
    if (input.shouldStop()) break;
    const verdict = classifyUpstreamFailure(failure);
    let otherKeysLeft = false;
    if (verdict.setKeyAside) {
      const { setAside, usableLeft } = services.health.setKeyAside(channel, key, { keepLast: !channel.autoDisable });
      if (usableLeft === 0 && verdict.disableChannel && channel.autoDisable) services.disableChannel(channel.id, `upstream ${failureDetail(failure)}`);
      otherKeysLeft = setAside && usableLeft > 0;
      // The channel's other keys may still serve this request (it counts against the retry budget).
      if (otherKeysLeft) excluded.delete(channel.id);
    } else if (verdict.disableChannel && channel.autoDisable) {
      services.disableChannel(channel.id, `upstream ${failureDetail(failure)}`);
    }
    // A refused key is the key's failure, not the channel's, while the channel has another usable key: it
    // does not count towards the cooldown. Its last key refused (kept in service, or none left) still does.
    if (verdict.countsAsChannelFailure && !otherKeysLeft) services.health.recordFailure(channel.id, services.now());
    if (!verdict.retry) return { kind: 'rejected', ...last, attempts };
  }
  if (last === undefined) return { kind: 'no_channel' };
  return { kind: 'exhausted', ...last, attempts };
}

/** The preferred channel's remembered key while it is still the channel's and not set aside; else the next in turn. */
function keyFor(services: RelayServices, channel: ChannelRecord, input: FailoverInput<unknown>): string | undefined {
  const fingerprint = input.preferredKeyFingerprint;
  if (fingerprint !== undefined && channel.id === input.query.preferredChannelId) {
    const kept = findKeyByFingerprint(channel.keys, fingerprint);
    if (kept !== undefined && !services.health.isKeyAside(channel.id, kept)) return kept;
  }
  return services.health.pickKey(channel);
}
