import { describe, expect, it } from 'vitest';
import { formatAnthropicModelList, formatGeminiModelList, formatOpenaiModelList } from './format-model-list.js';
import type { UsableModel } from './list-usable-models.js';

describe('format-model-list', () => {
  const models: UsableModel[] = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, ownedBy: 'openai', channelTypes: ['openai'] }));

  it('formats the OpenAI list', () => {
    expect(formatOpenaiModelList(models.slice(0, 1))).toEqual({ object: 'list', data: [{ id: 'a', object: 'model', created: 1_700_000_000, owned_by: 'openai' }] });
  });

  it('pages the Anthropic list with limit, after_id and before_id', () => {
    const first = formatAnthropicModelList(models, { limit: 2 });
    expect(first).toEqual({
      data: [
        { type: 'model', id: 'a', display_name: 'a', created_at: '2023-11-14T22:13:20Z' },
        { type: 'model', id: 'b', display_name: 'b', created_at: '2023-11-14T22:13:20Z' },
      ],
      has_more: true,
      first_id: 'a',
      last_id: 'b',
    });
    const last = formatAnthropicModelList(models, { limit: 2, afterId: 'c' });
    expect(last).toMatchObject({ has_more: false, first_id: 'd', last_id: 'e' });
    expect(formatAnthropicModelList(models, { limit: 2, beforeId: 'e' })).toMatchObject({ has_more: true, first_id: 'c', last_id: 'd' });
    expect(formatAnthropicModelList([], {})).toEqual({ data: [], has_more: false, first_id: null, last_id: null });
  });

  it('pages the Gemini list with pageSize and pageToken', () => {
    const first = formatGeminiModelList(models, 2, undefined);
    expect(first.models.map((model) => model.name)).toEqual(['models/a', 'models/b']);
    expect(first.nextPageToken).toBe('2');
    const last = formatGeminiModelList(models, 2, '4');
    expect(last.models.map((model) => model.name)).toEqual(['models/e']);
    expect(last).not.toHaveProperty('nextPageToken');
  });

  it('lists the embedding actions for a model a Gemini channel serves, and only then', () => {
    const methods = (channelTypes: string[]) => formatGeminiModelList([{ id: 'm', ownedBy: channelTypes[0]!, channelTypes }], undefined, undefined).models[0]!.supportedGenerationMethods;
    expect(methods(['openai'])).toEqual(['generateContent', 'streamGenerateContent', 'countTokens']);
    expect(methods(['anthropic', 'openai'])).toEqual(['generateContent', 'streamGenerateContent', 'countTokens']);
    expect(methods(['gemini'])).toEqual(['generateContent', 'streamGenerateContent', 'countTokens', 'embedContent', 'batchEmbedContents']);
    expect(methods(['gemini', 'openai'])).toEqual(['generateContent', 'streamGenerateContent', 'countTokens', 'embedContent', 'batchEmbedContents']);
  });
});
