/**
 * Pure retry policy (issue #3): connection errors, timeouts, 429 and 5xx move to another channel;
 * errors caused by the request go straight back to the client. A rejected key is set aside, and a dead
 * account (no credit, disabled organisation) disables its channel, whatever status the vendor used.
 */
export type UpstreamFailure =
  /** `message` goes to the client; `detail` (the socket's own error: host, port, errno) only to the log. */
  | { kind: 'connection'; message: string; detail?: string }
  | { kind: 'timeout'; phase: 'connect' | 'first_byte' | 'idle'; message: string }
  | { kind: 'status'; status: number; message: string };

/** What the log and the admin API record of a failure: the detail a client is not shown, when there is one. */
export function failureDetail(failure: UpstreamFailure): string {
  return failure.kind === 'connection' && failure.detail !== undefined ? `${failure.message} ${failure.detail}` : failure.message;
}

export interface FailureVerdict {
  /** Try another channel (when the retry budget allows). */
  retry: boolean;
  /** The key used is rejected: stop using it on this channel. */
  setKeyAside: boolean;
  /** The channel's account is dead (bad key, no credit): disable it when its auto_disable allows. */
  disableChannel: boolean;
  /** Counts towards the channel's failure cooldown. */
  countsAsChannelFailure: boolean;
}

// Messages that mean the account behind a channel cannot serve anything (new-api's default keyword list).
const accountDeadPhrases = [
  'your credit balance is too low',
  'this organization has been disabled',
  'you exceeded your current quota',
  'insufficient_quota',
  'account has been deactivated',
  'the security token included in the request is invalid',
  'your account is not authorized',
];

// Messages that mean the key itself was refused, whatever the status it came with: Google answers a bad
// key with 400 INVALID_ARGUMENT ("API key not valid"), not 401.
const keyRejectedPhrases = ['api key not valid', 'api_key_invalid', 'incorrect api key', 'invalid api key', 'invalid x-api-key'];

export function classifyUpstreamFailure(failure: UpstreamFailure): FailureVerdict {
  switch (failure.kind) {
    case 'connection':
    case 'timeout':
      return { retry: true, setKeyAside: false, disableChannel: false, countsAsChannelFailure: true };
    case 'status': {
      const message = failure.message.toLowerCase();
      const accountDead = accountDeadPhrases.some((phrase) => message.includes(phrase));
      const keyRejected = keyRejectedPhrases.some((phrase) => message.includes(phrase));
      if (failure.status === 401 || keyRejected) return { retry: true, setKeyAside: true, disableChannel: true, countsAsChannelFailure: true };
      if (failure.status === 403 || failure.status === 402) return { retry: true, setKeyAside: accountDead, disableChannel: accountDead, countsAsChannelFailure: true };
      if (failure.status === 429) return { retry: true, setKeyAside: false, disableChannel: accountDead, countsAsChannelFailure: true };
      if (failure.status === 408 || failure.status >= 500) return { retry: true, setKeyAside: false, disableChannel: false, countsAsChannelFailure: true };
      // Anthropic says "Your credit balance is too low" with a 400: the account, not the request.
      if (accountDead) return { retry: true, setKeyAside: true, disableChannel: true, countsAsChannelFailure: true };
      // 400, 404, 409, 413, 422 …: the request is at fault; another channel would say the same.
      return { retry: false, setKeyAside: false, disableChannel: false, countsAsChannelFailure: false };
    }
  }
}
