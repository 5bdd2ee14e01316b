/**
 * Gemini native actions on models their channel cannot serve that way (an OpenAI-channel model
 * embedded, a chat model's embedContent refused upstream, unknown models, mixed-model batches). Bar: checkCase.
 */
import { casesOf, sweep, type RouteUnderTest } from './type-confusion-cases.js';
import { keys, m, startMoreRoutesFixture } from './more-routes-fixture.js';

const embed = { content: { parts: [{ text: 'hello' }] } };
const batch = (model: string) => ({ requests: [{ model: `models/${model}`, content: { parts: [{ text: 'a' }] } }] });
const routes: RouteUnderTest[] = [
  // An OpenAI-channel model's embedContent is a 503 UNAVAILABLE with no upstream call (no Gemini channel lists it),
  // as docs/behaviour.md says of a model on another kind of channel: correct, but outside checkCase's bar, so left out.
  { label: 'embedContent on a gemini chat model', path: `/v1beta/models/${m.gemini}:embedContent`, style: 'gemini', body: embed },
  { label: 'embedContent on an unknown model', path: '/v1beta/models/nope:embedContent', style: 'gemini', body: embed },
  { label: 'batch naming another model', path: `/v1beta/models/${m.gemEmbed}:batchEmbedContents`, style: 'gemini', body: batch(m.chat) },
  { label: 'countTokens on an unknown model', path: '/v1beta/models/nope:countTokens', style: 'gemini', body: { contents: [{ parts: [{ text: 'x' }] }] } },
  { label: 'countTokens on an embedding model', path: `/v1/models/${m.gemEmbed}:countTokens`, style: 'gemini', body: { contents: [{ parts: [{ text: 'x' }] }] } },
  { label: 'embed via /v1/models', path: `/v1/models/${m.gemEmbed}:embedContent?alt=sse`, style: 'gemini', body: embed },
];
sweep('gemini actions on models served otherwise', casesOf(routes, ['null', '"x"', '{}']), startMoreRoutesFixture, keys.good);
