import type { QuotaLedger } from '../billing/quota-ledger.js';
import type { SettleRetryQueue } from '../billing/settle-retry-queue.js';
import type { Catalog } from '../catalog/catalog.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { LogWriter } from '../logging/log-writer.js';
import type { UpstreamClient } from '../providers/upstream-client.js';
import type { ChannelHealth } from '../routing/channel-health.js';
import type { ConversationOwners } from './conversations/conversation-owners.js';
import type { InFlightRequests } from './in-flight-requests.js';
import type { ResponseMemory } from './responses/response-memory.js';
import type { StreamKeepAlive } from './stream-keepalive.js';
import type { PendingSubmits } from './task-submit/pending-submits.js';

export interface RelaySettings {
  /** Largest single SSE event accepted from an upstream. */
  maxStreamEventBytes: number;
  /**
   * How long an answer whose client left is read on for its usage report, once the upstream produced the
   * whole answer (USAGE_WAIT_SECONDS); 0: the upstream call is aborted at once.
   */
  usageWaitMs: number;
}

/** What the relay pipeline needs, built once in main.ts. */
export interface RelayServices {
  catalog: Catalog;
  upstream: UpstreamClient;
  health: ChannelHealth;
  ledger: QuotaLedger;
  /** Settles (and releases of reserves whose outcome is unknown) that failed, tried again until they go through. */
  settleRetries: SettleRetryQueue;
  rateLimiter: RateLimiter;
  logWriter: LogWriter;
  /** Requests not yet settled and logged; shutdown waits for them. */
  inFlight: InFlightRequests;
  /** Stored Responses answers: where each is, whose, and how much context it holds. */
  responses: ResponseMemory;
  /** Whose each conversation made through the gateway is: the memory above, and the table behind it. */
  conversations: ConversationOwners;
  /** Accepted task submits whose state the database would not take within their request, written in the background. */
  pendingSubmits: PendingSubmits;
  /** Pings client streams that fall silent (STREAM_KEEPALIVE_SECONDS). */
  keepAlive: StreamKeepAlive;
  settings: RelaySettings;
  /** A line for the operator (stderr): something the gateway could not do that must be mended by hand. */
  report(line: string): void;
  /** Disables a channel whose account is dead (when its auto_disable allows); never awaited on the hot path. */
  disableChannel(channelId: number, reason: string): void;
  now(): number;
  random(): number;
}
