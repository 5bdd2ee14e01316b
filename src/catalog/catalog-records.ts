/** The in-memory view of users, tokens, channels, prices and groups that the hot path reads. */
export type UserRole = 'root' | 'admin' | 'user';

export interface UserRecord {
  id: number;
  username: string;
  role: UserRole;
  group: string;
  quota: number;
  unlimitedQuota: boolean;
  usedQuota: number;
  requestCount: number;
  enabled: boolean;
  /** Console sessions carry it; a session with an older version is refused (logout, password change…). */
  sessionVersion: number;
  createdAt: number;
}

export interface RateLimit {
  rpm?: number;
  tpm?: number;
}

export interface TokenRecord {
  id: number;
  userId: number;
  name: string;
  keyPrefix: string;
  /** null = the user's group */
  group: string | null;
  remainQuota: number;
  usedQuota: number;
  unlimitedQuota: boolean;
  /** null = every model the group may use */
  modelLimits: string[] | null;
  /** unix seconds; 0 = never */
  expiresAt: number;
  enabled: boolean;
  rateLimit: RateLimit;
  requestCount: number;
  createdAt: number;
  /** `playground`: made by /pg/chat/completions for the user's console chats; `api`: every other token. */
  purpose: TokenPurpose;
}

export type TokenPurpose = 'api' | 'playground';

export type ChannelStatus = 'enabled' | 'disabled' | 'auto_disabled';

export interface ChannelRecord {
  id: number;
  name: string;
  type: string;
  baseUrl: string;
  keys: string[];
  models: string[];
  groups: string[];
  priority: number;
  weight: number;
  modelMapping: Record<string, string>;
  settings: Record<string, unknown>;
  status: ChannelStatus;
  autoDisable: boolean;
  statusReason: string | null;
  usedQuota: number;
  requestCount: number;
}

export interface PriceRecord {
  model: string;
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  /** Anthropic's 1-hour cache writes; unset, they are billed as other cache writes. */
  cacheWrite1h?: number;
  /** Audio input tokens (OpenAI's audio and realtime models, Gemini's audio input); unset, they are billed as input. */
  audioInput?: number;
  /** Audio output tokens; unset, they are billed as output. */
  audioOutput?: number;
  /** Image input tokens (gpt-image models' input images, Gemini's image input); unset, they are billed as input. */
  imageInput?: number;
  /** Image output tokens (Gemini's image models, gpt-image); unset, they are billed as output. */
  imageOutput?: number;
  /** Each web search the upstream ran for the request (Anthropic's and OpenAI's server-side search tool); unset, they are not billed. */
  webSearch?: number;
  /**
   * OpenAI's Priority processing (`service_tier: "priority"`), which OpenAI bills above its standard rates:
   * the multiplier (at least 1) of the token prices when a request that asked for it is answered at that
   * tier. Unset, the tier is not sent upstream: the operator never pays a tier it did not price.
   */
  priority?: number;
  perCall?: number;
  perSecond?: number;
}

export interface GroupRecord {
  name: string;
  ratio: number;
}

export function channelStatusFromCode(code: number): ChannelStatus {
  if (code === 1) return 'enabled';
  if (code === 3) return 'auto_disabled';
  return 'disabled';
}

export function channelStatusCode(status: ChannelStatus): number {
  if (status === 'enabled') return 1;
  if (status === 'auto_disabled') return 3;
  return 2;
}
