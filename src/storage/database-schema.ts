import type { Generated, Kysely } from 'kysely';

/**
 * One schema for SQLite, PostgreSQL and MySQL. Booleans are 0/1 integers, times are unix milliseconds
 * (bigint), JSON is text: the three dialects agree on nothing else.
 */
export interface UsersTable {
  id: Generated<number>;
  username: string;
  password_hash: string | null;
  role: 'root' | 'admin' | 'user';
  group_name: string;
  /** Remaining wallet balance in quota units. Ignored when unlimited_quota = 1. */
  quota: number;
  unlimited_quota: number;
  used_quota: Generated<number>;
  request_count: Generated<number>;
  status: number;
  /** Signed into console session cookies; bumped to end every session of the user (migration 007). */
  session_version: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface TokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  key_hash: string;
  key_prefix: string;
  /** null = the user's group. */
  group_name: string | null;
  remain_quota: number;
  used_quota: Generated<number>;
  unlimited_quota: number;
  /** JSON array of model names, or null when the token may use every model of its group. */
  model_limits: string | null;
  expires_at: number;
  status: number;
  rate_limit_rpm: number | null;
  rate_limit_tpm: number | null;
  request_count: Generated<number>;
  /** 'api', or 'playground' for the token /pg/chat/completions made for itself (migration 008). */
  purpose: Generated<string>;
  created_at: number;
  updated_at: number;
}

export interface ChannelsTable {
  id: Generated<number>;
  name: string;
  type: string;
  base_url: string;
  /** AES-GCM ciphertext of the JSON array of keys. */
  keys_encrypted: string;
  models: string;
  groups: string;
  priority: number;
  weight: number;
  model_mapping: string;
  settings: string;
  /** 1 enabled, 2 disabled by an operator, 3 disabled automatically. */
  status: number;
  auto_disable: number;
  status_reason: string | null;
  used_quota: Generated<number>;
  request_count: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface PricesTable {
  model: string;
  input: number | null;
  output: number | null;
  cache_read: number | null;
  cache_write: number | null;
  cache_write_1h: number | null;
  audio_input: number | null;
  audio_output: number | null;
  image_input: number | null;
  image_output: number | null;
  web_search: number | null;
  /** OpenAI Priority processing's multiplier of the token prices (migration 016). */
  priority: number | null;
  per_call: number | null;
  per_second: number | null;
  updated_at: number;
}

export interface GroupsTable {
  name: string;
  ratio: number;
  updated_at: number;
}

export interface OptionsTable {
  key: string;
  value: string;
}

export interface QuotaReservationsTable {
  id: string;
  token_id: number;
  user_id: number;
  amount: number;
  /** The gateway instance that holds it; a restarted instance settles what its crashed self left open. */
  owner: string;
  /** reserved | settled | released */
  state: string;
  settled_amount: number | null;
  created_at: number;
  settled_at: number | null;
  /** 1 when the token was limited at settlement (the charge left its balance), 0 when not; null before migration 017 and until settled. */
  token_debited: number | null;
  /** The same for the user. */
  user_debited: number | null;
  /** The model the request asked for, as its reserve recorded it (migration 021); null before it. */
  model: string | null;
  /** The channel its settle counted the charge on (migration 021); null until settled, or when none served. */
  channel_id: number | null;
  /**
   * When its log row was written through the claim (one writer writes it): by a recovery writing a lost row
   * back, or by its own node's log writer for a row held over half an hour (insert-log-rows-once.ts); null otherwise.
   */
  log_recovered_at: number | null;
}

export interface LogsTable {
  id: Generated<number>;
  request_id: string;
  created_at: number;
  user_id: number | null;
  token_id: number | null;
  token_name: string | null;
  channel_id: number | null;
  model: string | null;
  upstream_model: string | null;
  style: string;
  path: string;
  is_stream: number;
  status: number;
  input_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** Of cache_write_tokens, the writes to Anthropic's 1-hour cache. */
  cache_write_1h_tokens: number;
  /** Of the plain input tokens, the audio ones (billed at the audio input price). */
  audio_input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  /** Of output_tokens, the audio ones (billed at the audio output price). */
  audio_output_tokens: number;
  /** Of the plain input tokens, the image ones (billed at the image input price). */
  image_input_tokens: number;
  /** Of output_tokens, the image ones (billed at the image output price). */
  image_output_tokens: number;
  /** Web searches the upstream ran for the request (billed at the web_search price). */
  web_search_calls: number;
  quota: number;
  latency_ms: number;
  first_token_ms: number | null;
  attempts: string;
  warnings: string;
  usage_source: string;
  ip: string | null;
  error: string | null;
}

/** An asynchronous task (migration 010); see src/tasks/README.md for its lifecycle. */
export interface TasksTable {
  id: Generated<number>;
  /** `task_` + 32 characters: the id clients see (the upstream's never reaches them). */
  public_id: string;
  /** video */
  kind: string;
  /** The submit request's id, which is its quota reservation's id. */
  request_id: string;
  user_id: number;
  token_id: number;
  channel_id: number | null;
  /** Which of the channel's keys submitted it (the upstream task belongs to that key's account). */
  key_fingerprint: string | null;
  model: string;
  upstream_model: string | null;
  upstream_id: string | null;
  /** not_start | submitted | queued | in_progress | success | failure (src/tasks/task-status.ts) */
  status: string;
  progress: number;
  /** JSON: what the client asked for (seconds, size, prompt). */
  properties: string;
  /** JSON: the upstream's last answer about the task. */
  result: string | null;
  fail_reason: string | null;
  /** The charge settled at submit; null until then. */
  quota: number | null;
  /** Copied from its reservation with the charge: whether the charge left the token's balance (1) or not (0); null before migration 017. */
  token_debited: number | null;
  /** The same for the user: a refund credits exactly the wallets that paid. */
  user_debited: number | null;
  refunded: number;
  lease_until: number;
  next_poll_at: number;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}

/** Who made a Seedance asset, and where (migration 014): its maker alone reads it back, from that channel. */
export interface AssetOwnersTable {
  /** The upstream's id (`asset-…`), which the client names. */
  asset_id: string;
  user_id: number;
  channel_id: number;
  /** Which of the channel's keys created it (the asset is in that key's account). */
  key_fingerprint: string;
  created_at: number;
}

/**
 * Who made an OpenAI conversation through the gateway (or claimed it, `allow_unknown_conversations`), and
 * where (migrations 019, 020): the response memory's entry for it, kept until the conversation is deleted
 * through the gateway, and read back when the memory has none.
 */
export interface ConversationOwnersTable {
  /** The upstream's id (`conv_…`), which the client names; over 191 characters, `sha256:` + its hash (migration 020). */
  conversation_id: string;
  /** The whole id when `conversation_id` is its hash, else null. */
  long_conversation_id: string | null;
  user_id: number;
  /** 0 while a claim (`allow_unknown_conversations`) awaits its first answer, which names the channel. */
  channel_id: number;
  /** Which of the channel's keys made it (the conversation is in that key's account); '' while claimed, unanswered. */
  key_fingerprint: string;
  /** The history last written (when it had doubled since the write before), in tokens. */
  context_tokens: Generated<number>;
  created_at: number;
  /**
   * The turns holding a claim that awaits its first answer (migration 023): the turns of its user that named
   * it meanwhile, less those released unanswered; the last one's release deletes the row. 1 on a made row.
   */
  holders: Generated<number>;
}

export interface DatabaseSchema {
  users: UsersTable;
  tokens: TokensTable;
  channels: ChannelsTable;
  prices: PricesTable;
  groups: GroupsTable;
  options: OptionsTable;
  quota_reservations: QuotaReservationsTable;
  logs: LogsTable;
  tasks: TasksTable;
  asset_owners: AssetOwnersTable;
  conversation_owners: ConversationOwnersTable;
}

export type Database = Kysely<DatabaseSchema>;
export type DialectName = 'sqlite' | 'postgres' | 'mysql';
