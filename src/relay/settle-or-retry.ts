import type { SettleInput } from '../billing/quota-ledger.js';
import type { RelayServices } from './relay-services.js';

/**
 * A settle whose outcome nobody waits for (a hold released at nothing): made now, or — when the database
 * cannot take it — handed to the retry queue, which makes it again until it goes through.
 */
export async function settleOrRetry(services: RelayServices, reservationId: string, input: SettleInput): Promise<void> {
  try {
    await services.ledger.settle(reservationId, input, services.now());
  } catch (error) {
    services.settleRetries.add({ reservationId, input }, error);
  }
}
