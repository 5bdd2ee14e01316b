import type { AuthenticatedCaller } from '../../auth/authenticate-token.js';
import { noTokens } from '../build-recovery-log-row.js';
import type { LogRow } from '../../storage/logs-repository.js';

export interface AssetLogFacts {
  requestId: string;
  startedAt: number;
  finishedAt: number;
  caller: AuthenticatedCaller;
  /** The asset channel that answered, if one did. */
  channelId: number | undefined;
  path: string;
  status: number;
  warnings: string[];
  ip: string;
  error: string | undefined;
  /** The row's `style`: `seedance-asset` unless said (`openai-conversations`). */
  style?: string;
}

/**
 * Pure: the log row of one asset request (`/api/asset/createMedia`, `/api/asset/get`). Free, so quota 0 and
 * no tokens; no model (an asset belongs to none: the row names its route by `path` and `style`).
 */
export function buildAssetLogRow(facts: AssetLogFacts): LogRow {
  return {
    request_id: facts.requestId,
    created_at: facts.startedAt,
    user_id: facts.caller.user.id,
    token_id: facts.caller.token.id,
    token_name: facts.caller.token.name,
    channel_id: facts.channelId ?? null,
    model: null,
    upstream_model: null,
    style: facts.style ?? 'seedance-asset',
    path: facts.path,
    is_stream: 0,
    status: facts.status,
    ...noTokens,
    quota: 0,
    latency_ms: Math.max(0, facts.finishedAt - facts.startedAt),
    first_token_ms: null,
    attempts: '[]',
    warnings: facts.warnings.length === 0 ? '[]' : JSON.stringify(facts.warnings),
    usage_source: 'none',
    ip: facts.ip.slice(0, 64),
    error: facts.error === undefined ? null : facts.error.slice(0, 1000),
  };
}
