import { geminiEmbeddingActions, geminiEmbeddingChannelTypes } from '../relay/gemini/gemini-embedding-request.js';
import type { UsableModel } from './list-usable-models.js';

/**
 * Model-list bodies in the three styles (protocols.md §10). `created` is a fixed date: the gateway does
 * not know when a vendor released a model, and a stable value keeps client caches stable.
 */
const createdSeconds = 1_700_000_000;
const createdRfc3339 = new Date(createdSeconds * 1000).toISOString().replace('.000Z', 'Z');

export function formatOpenaiModel(model: UsableModel) {
  return { id: model.id, object: 'model' as const, created: createdSeconds, owned_by: model.ownedBy };
}

export function formatOpenaiModelList(models: UsableModel[]) {
  return { object: 'list' as const, data: models.map(formatOpenaiModel) };
}

export function formatAnthropicModel(model: UsableModel) {
  return { type: 'model' as const, id: model.id, display_name: model.id, created_at: createdRfc3339 };
}

export interface AnthropicPageQuery {
  limit?: number;
  afterId?: string;
  beforeId?: string;
}

/** Anthropic pages by `limit` (1–1000, default 20), `after_id` and `before_id`. */
export function formatAnthropicModelList(models: UsableModel[], query: AnthropicPageQuery) {
  const limit = Math.min(Math.max(query.limit ?? 20, 1), 1000);
  let start = 0;
  let end = models.length;
  // A cursor is placed by the list's order (list-usable-models.ts sorts by localeCompare), so one that is no
  // longer listed (its channel disabled between two pages) still continues where it was, not from the start.
  const from = (id: string, inclusive: boolean) => {
    const index = models.findIndex((model) => (inclusive ? model.id.localeCompare(id) >= 0 : model.id.localeCompare(id) > 0));
    return index < 0 ? models.length : index;
  };
  if (query.afterId !== undefined) start = from(query.afterId, false);
  if (query.beforeId !== undefined) {
    end = from(query.beforeId, true);
    start = Math.max(start, end - limit);
  }
  const page = models.slice(start, Math.min(end, start + limit));
  return {
    data: page.map(formatAnthropicModel),
    has_more: query.beforeId !== undefined ? start > 0 : start + page.length < end,
    first_id: page[0]?.id ?? null,
    last_id: page[page.length - 1]?.id ?? null,
  };
}

const geminiTextMethods = ['generateContent', 'streamGenerateContent', 'countTokens'];

/**
 * A model a Gemini channel serves also lists the embedding actions the gateway relays to it: Google's docs
 * find embedding models by `embedContent` among them (the SDK's `supportedActions`).
 */
export function formatGeminiModel(model: UsableModel) {
  const embeds = model.channelTypes.some((type) => geminiEmbeddingChannelTypes.has(type));
  return {
    name: `models/${model.id}`,
    baseModelId: model.id,
    version: '001',
    displayName: model.id,
    description: `${model.id} served through Unified Relay`,
    supportedGenerationMethods: embeds ? [...geminiTextMethods, ...geminiEmbeddingActions] : geminiTextMethods,
  };
}

/** Gemini pages by `pageSize` (default 50 — also for 0, "unspecified" — at most 1000) and an opaque `pageToken` (here an offset). */
export function formatGeminiModelList(models: UsableModel[], pageSize: number | undefined, pageToken: string | undefined) {
  const size = pageSize === undefined || pageSize <= 0 ? 50 : Math.min(pageSize, 1000);
  const offset = pageToken !== undefined && /^\d+$/.test(pageToken) ? Number(pageToken) : 0;
  const page = models.slice(offset, offset + size);
  const next = offset + size < models.length ? String(offset + size) : undefined;
  return next === undefined ? { models: page.map(formatGeminiModel) } : { models: page.map(formatGeminiModel), nextPageToken: next };
}
