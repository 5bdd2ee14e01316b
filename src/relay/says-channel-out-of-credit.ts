import { reportsChannelOutOfCredit } from '../routing/reports-channel-out-of-credit.js';
import { readUpstreamErrorBody } from './read-upstream-error.js';

/**
 * Pure: whether an upstream's whole answer (its status and text) says the channel's account is out of credit
 * or disabled (reports-channel-out-of-credit.ts), for the routes that read upstream answers themselves
 * (count_tokens, the asset routes). Only an error status is read.
 */
export function saysChannelOutOfCredit(status: number, text: string): boolean {
  if (status < 400) return false;
  const { message, reason } = readUpstreamErrorBody(text, status);
  return reportsChannelOutOfCredit({ kind: 'status', status, message, ...(reason === undefined ? {} : { reason }) });
}
