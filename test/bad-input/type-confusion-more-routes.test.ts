/**
 * The type-confusion sweep (type-confusion-cases.ts) on the JSON routes it did not
 * cover: Gemini native countTokens / embedContent / batchEmbedContents, the web reader and search, Seedream
 * group generation, the upload presign. Same bar as the other sweeps (checkCase).
 */
import { casesOf, sweep, type RouteUnderTest } from './type-confusion-cases.js';
import { keys, m, startMoreRoutesFixture } from './more-routes-fixture.js';

const content = { role: 'user', parts: [{ text: 'hi' }] };

const routes: RouteUnderTest[] = [
  {
    label: 'gemini countTokens',
    path: `/v1beta/models/${m.gemini}:countTokens`,
    style: 'gemini',
    body: { contents: [content], systemInstruction: { parts: [{ text: 'be brief' }] }, tools: [{ functionDeclarations: [{ name: 'f', description: 'd' }] }] },
    extra: ['generateContentRequest', 'generateContentRequest.contents', 'generateContentRequest.model'],
  },
  {
    label: 'gemini countTokens wrapped',
    path: `/v1beta/models/${m.gemini}:countTokens`,
    style: 'gemini',
    body: { generateContentRequest: { model: `models/${m.gemini}`, contents: [content], generationConfig: { maxOutputTokens: 16 } } },
  },
  {
    label: 'gemini embedContent',
    path: `/v1beta/models/${m.gemEmbed}:embedContent`,
    style: 'gemini',
    body: { model: `models/${m.gemEmbed}`, content: { parts: [{ text: 'hello' }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }] }, taskType: 'RETRIEVAL_DOCUMENT', title: 't', outputDimensionality: 8 },
  },
  {
    label: 'gemini batchEmbedContents',
    path: `/v1beta/models/${m.gemEmbed}:batchEmbedContents`,
    style: 'gemini',
    body: { requests: [{ model: `models/${m.gemEmbed}`, content: { parts: [{ text: 'a' }] }, title: 't', outputDimensionality: 8 }, { model: `models/${m.gemEmbed}`, content: { parts: [{ text: 'b' }] } }] },
  },
  {
    label: 'web reader',
    path: '/v1/web-reader/read',
    style: 'openai',
    body: { url: 'https://example.com/a', format: 'markdown', liteMode: true, includeImages: false, linkSummary: false, topic: 'x', preserveSource: false },
    extra: ['model', 'timeout', 'readTimeout'],
  },
  {
    label: 'web search',
    path: '/v1/web-search/search',
    style: 'openai',
    body: { query: 'tea', count: 5, freshness: 'Week', format: 'json', page: 1, includeImages: false },
    extra: ['model', 'area'],
  },
  {
    label: 'seedream group',
    path: '/v1/images/generations',
    style: 'openai',
    body: { model: m.seedream, prompt: 'a fox story', size: '2K', sequential_image_generation: 'auto', sequential_image_generation_options: { max_images: 4 }, response_format: 'url' },
    skip: ['model'],
    extra: ['n', 'stream', 'watermark'],
  },
  {
    label: 'upload presign',
    path: '/api/upload/presign',
    style: 'api',
    body: { file_name: 'cat.png', content_type: 'image/png', expires_in: 600, prefix: 'a/b' },
  },
];

const cases = casesOf(routes);

sweep('more JSON routes (Gemini countTokens and embeddings, web tools, Seedream groups, presign): every field path × every hostile value', cases, startMoreRoutesFixture, keys.good);
