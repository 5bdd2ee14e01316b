import type { FastifyReply, FastifyRequest } from 'fastify';
import { emptyUsage } from '../../billing/normalized-usage.js';
import { isRecord } from '../../convert/shared/is-record.js';
import { resolveModelMapping } from '../../routing/resolve-model-mapping.js';
import { estimatePromptTokens } from '../estimate-prompt-tokens.js';
import { mappingLoopFailure } from '../mapping-loop-failure.js';
import { MultipartBody } from '../multipart-body.js';
import { attemptOpenaiUpstream } from '../openai/attempt-openai-upstream.js';
import { runRelayEnvelope } from '../relay-envelope.js';
import type { RelayServices } from '../relay-services.js';
import type { UsageMeter } from '../usage-meter.js';
import { missingParameter, requireObjectBody } from '../validate-body.js';
import { encodeMultipartForm } from '../multipart-form.js';
import { readImageForm, type ImageForm } from './image-form.js';
import { readImageRequest, type ImageOperation, type ImageRequest } from './image-request.js';
import { completedImagesIn, pipeImageStream } from './pipe-image-stream.js';
import { readImagesAnswer, readImageUsage } from './read-images-answer.js';

const openaiChannelTypes: ReadonlySet<string> = new Set(['openai']);

const upstreamPaths: Record<ImageOperation, string> = { generation: '/v1/images/generations', edit: '/v1/images/edits' };
const logStyles: Record<ImageOperation, string> = { generation: 'openai-images', edit: 'openai-image-edits' };

/** The client's body in either form it may take: JSON (generations, edits) or a multipart form (edits). */
type ImageBody = { kind: 'json'; body: Record<string, unknown>; raw: Buffer | undefined } | { kind: 'form'; body: MultipartBody; form: ImageForm };

/**
 * Spec §4.6 / §4.7: image generation and editing, served by OpenAI-compatible channels (the GPT-image,
 * DALL·E, Seedream and Grok-image families all take OpenAI's Images API). The request is checked, relayed
 * with the model mapped (bytes untouched when nothing changes) and the answer sent as received. Billing:
 * a per-call price is per image delivered (at most `n`); a token price bills the usage the upstream reports.
 * A streamed request (`stream: true`, partial images) is relayed event by event (pipe-image-stream.ts).
 */
export function runImageRelay(services: RelayServices, operation: ImageOperation, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  return services.inFlight.track(() => relayImageRequest(services, operation, request, reply));
}

async function relayImageRequest(services: RelayServices, operation: ImageOperation, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const body: ImageBody =
    request.body instanceof MultipartBody && operation === 'edit'
      ? { kind: 'form', body: request.body, form: await readImageForm(request.body) }
      : { kind: 'json', body: requireObjectBody(request.body), raw: request.rawBody };
  const fields = body.kind === 'form' ? body.form.fields : body.body;
  const image = readImageRequest(operation, fields, body.kind === 'form');
  const inputImages = body.kind === 'form' ? body.form.images : countJsonImages(body.body);
  if (operation === 'edit' && inputImages === 0) throw missingParameter('image');
  // A GPT-image image's documented size in tokens, when the model's budget is smaller.
  const outputBudgetPerImage = Math.max(services.catalog.snapshot.outputBudgetFor(image.model), image.outputTokensPerImage ?? 0);

  await runRelayEnvelope(
    services,
    request,
    reply,
    {
      model: image.model,
      stream: image.stream,
      ...estimatePromptTokens({ texts: [image.prompt], extraTokens: 0, imageTokens: inputImages * image.tokensPerReferenceImage }),
      // Token-priced image models (gpt-image) write their images as output tokens: the model's budget per image.
      maxOutputTokens: image.images * outputBudgetPerImage,
      calls: image.images,
      channelTypes: openaiChannelTypes,
      logStyle: logStyles[operation],
      warnings: [],
    },
    async (channel, key, tools) => {
      const mapping = resolveModelMapping(channel.modelMapping, image.model);
      if (!mapping.ok) return mappingLoopFailure(channel.id, mapping.loop);
      tools.setUpstreamModel(mapping.upstreamModel);
      const upstream = await buildUpstreamImageBody(body, image, mapping.upstreamModel);
      return attemptOpenaiUpstream({
        services,
        upstreamPath: upstreamPaths[operation],
        channel,
        key,
        upstreamBody: upstream.bytes,
        upstreamContentType: upstream.contentType,
        stream: image.stream,
        pipeStream: (piped) => pipeImageStream({ ...piped, outputBudgetPerImage }),
        reply,
        meter: tools.meter,
        signal: tools.signal,
        clientHeaders: tools.clientHeaders(channel),
        readWholeAnswer: (answer, meter) => meterImagesAnswer(answer, meter, outputBudgetPerImage, image.images, services.settings.maxStreamEventBytes),
      });
    },
    (_channel, json) => isRecord(json) && isRecord(json.error),
  );
}

/** The bytes sent upstream: the client's own unless the model is mapped or a field is rewritten. */
async function buildUpstreamImageBody(body: ImageBody, image: ImageRequest, upstreamModel: string): Promise<{ bytes: string | Buffer; contentType: string }> {
  const changes: Record<string, string | number> = Object.assign({}, image.rewrites);
  // An edit that named no model is sent the one it was routed as.
  const sentModel = body.kind === 'form' ? body.form.fields.model : body.body.model;
  if (upstreamModel !== sentModel) changes.model = upstreamModel;
  if (body.kind === 'form') return encodeMultipartForm(body.body, body.form.form, changes);
  const unchanged = Object.keys(changes).length === 0;
  const bytes = unchanged && body.raw !== undefined ? body.raw : JSON.stringify(Object.assign({}, body.body, changes));
  return { bytes, contentType: 'application/json' };
}

/**
 * What an answer delivered: its images (a per-image price charges those) and the usage it reports. An
 * error document sent with a 2xx delivered nothing. A token-priced answer without usage is billed its
 * prompt (counted locally) and, per image delivered, the output the reservation assumed: images are not
 * text, and a local count of them would make them free.
 */
function meterImagesAnswer(answer: Buffer, meter: UsageMeter, outputBudgetPerImage: number, asked: number, maxEventBytes: number): void {
  // An image stream labelled as something else: billed by its completed images, as a stream is.
  const streamed = completedImagesIn(answer, outputBudgetPerImage, maxEventBytes);
  if (streamed !== undefined) {
    streamed.applyTo(meter);
    return;
  }
  const { images, usage, failed } = readImagesAnswer(answer);
  // An error document delivered nothing: at a token price too, it costs nothing.
  meter.upstreamUsage = readImageUsage(usage) ?? (failed ? emptyUsage() : undefined);
  meter.deliveredCalls = failed ? 0 : images;
  // An answer that is not an Images document (a stream labelled as something else) is charged the `n`
  // asked for, at either kind of price.
  if (meter.upstreamUsage === undefined && !failed) meter.unreportedOutputTokens = (images ?? asked) * outputBudgetPerImage;
}

/** Reference images in a JSON body: `image` (one, or an array) and `images` (gpt-image edits). */
function countJsonImages(body: Record<string, unknown>): number {
  const count = (value: unknown) => (Array.isArray(value) ? value.length : value === undefined || value === null || value === '' ? 0 : 1);
  return count(body.image) + count(body.images);
}
