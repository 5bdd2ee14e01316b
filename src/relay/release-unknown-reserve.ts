import { correctTokenWindows, type CountedRateCheck } from './correct-token-windows.js';
import type { RelayServices } from './relay-services.js';

/**
 * After it found nothing to hand back, how many more times the settle of a reserve that threw is made:
 * on the retry schedule (0.5 s doubling), about the next 30 s once the database answers again.
 */
const unknownReserveRechecks = 5;

/**
 * A reserve that threw may still have been committed (the connection broke after the server did it): the
 * client is refused and nothing is served, so whatever it holds is handed back — a settle at nothing, made
 * by the retry queue, which changes nothing if the reservation never was. Without it a committed one
 * stayed open until recovery charged it in full.
 */
export function releaseUnknownReserve(services: RelayServices, reservationId: string, rateChecks: CountedRateCheck[], error: unknown): void {
  correctTokenWindows(services.rateLimiter, rateChecks, 0, services.now());
  services.settleRetries.add({ reservationId, input: { actualAmount: 0, channelId: undefined }, recheck: unknownReserveRechecks }, error);
}
