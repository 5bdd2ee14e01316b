/**
 * Pure retry policy (issue #3): connection errors, timeouts, 429 and 5xx move to another channel;
 * errors caused by the request go straight back to the client. A rejected key is set aside, and a dead
 * account (no credit, disabled organisation) disables its channel, whatever status the vendor used.
 */
export type UpstreamFailure =
  /** `message` goes to the client; `detail` (the socket's own error: host, port, errno) only to the log. */
  | { kind: 'connection'; message: string; detail?: string }
  | { kind: 'timeout'; phase: 'connect' | 'first_byte' | 'idle'; message: string }
  /**
   * `reason` is what the upstream said about the channel's key or account, read from fields the client
   * cannot write (readUpstreamErrorReason): never from the message alone, which may quote the request.
   * `mayBeTheRequests`: the answer cannot tell the channel's fault from the request's (a 2xx error document).
   */
  | { kind: 'status'; status: number; message: string; reason?: UpstreamErrorReason; mayBeTheRequests?: true; detail?: string };

/** The key itself was refused (whatever the status: Google says so with a 400), or the account behind it cannot serve anything. */
export type UpstreamErrorReason = 'key_rejected' | 'account_dead';

/** What the log and the admin API record of a failure: the detail a client is not shown, when there is one. */
export function failureDetail(failure: UpstreamFailure): string {
  return failure.kind !== 'timeout' && failure.detail !== undefined ? `${failure.message} ${failure.detail}` : failure.message;
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

export function classifyUpstreamFailure(failure: UpstreamFailure): FailureVerdict {
  switch (failure.kind) {
    case 'connection':
    case 'timeout':
      return { retry: true, setKeyAside: false, disableChannel: false, countsAsChannelFailure: true };
    case 'status': {
      const { status, reason } = failure;
      const accountDead = reason === 'account_dead';
      if (status === 401 || reason === 'key_rejected') return { retry: true, setKeyAside: true, disableChannel: true, countsAsChannelFailure: true };
      if (status === 403 || status === 402) return { retry: true, setKeyAside: accountDead, disableChannel: accountDead, countsAsChannelFailure: true };
      if (status === 429) return { retry: true, setKeyAside: false, disableChannel: accountDead, countsAsChannelFailure: true };
      // Anthropic says "Your credit balance is too low" with a 400, a chained gateway in a 2xx error document: the account, not the request.
      if (accountDead) return { retry: true, setKeyAside: true, disableChannel: true, countsAsChannelFailure: true };
      // A 2xx error document says nothing more: it may answer the client's own bad request. Tried elsewhere, not held against the channel.
      if (failure.mayBeTheRequests === true) return { retry: true, setKeyAside: false, disableChannel: false, countsAsChannelFailure: false };
      if (status === 408 || status >= 500) return { retry: true, setKeyAside: false, disableChannel: false, countsAsChannelFailure: true };
      // 400, 404, 409, 413, 422 …: the request is at fault; another channel would say the same.
      return { retry: false, setKeyAside: false, disableChannel: false, countsAsChannelFailure: false };
    }
  }
}
