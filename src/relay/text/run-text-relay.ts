import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { CanonicalReasoningPart, CanonicalRequest } from '../../canonical/canonical-request.js';
import type { ConversionContext } from '../../canonical/conversion.js';
import { chatOutputLimitField } from '../../convert/openai-chat/chat-output-limit-field.js';
import { isRecord } from '../../convert/shared/is-record.js';
import { upstreamTextStyleOf } from '../../providers/build-provider-request.js';
import { resolveModelMapping } from '../../routing/resolve-model-mapping.js';
import { candidateChannels } from '../../routing/select-channel.js';
import { attemptConvertedUpstream, defaultMaxTokens } from '../attempt-converted-upstream.js';
import { attemptPassthroughUpstream } from '../attempt-passthrough-upstream.js';
import { attemptOpenaiUpstream } from '../openai/attempt-openai-upstream.js';
import { buildUpstreamBody } from '../openai/build-upstream-body.js';
import { openaiEndpoints } from '../openai/openai-endpoints.js';
import type { PromptTokens } from '../estimate-prompt-tokens.js';
import { runRelayEnvelope, type RelayPlan } from '../relay-envelope.js';
import { countUsageLocally } from '../settle-request.js';
import type { RelayServices } from '../relay-services.js';
import type { TextStyleName } from '../text-style.js';
import { continuationIdsOf, rememberAnswer, rememberOutputItems, withContext } from '../responses/continued-response.js';
import { recallAndClaimContinuation } from '../conversations/recall-and-claim-continuation.js';
import type { UsageMeter } from '../usage-meter.js';
import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { keyFingerprint } from '../../tasks/key-fingerprint.js';
import { estimateSentOpaqueTokens } from './estimate-sent-opaque-tokens.js';
import { collectUnsentReasoningTexts } from './collect-unsent-reasoning-texts.js';
import { pictureOutputTokens, readPictureModels, type PictureModels } from './compute-picture-output-tokens.js';
import { declaredWebSearches } from './declared-web-searches.js';
import { estimateUnsentReasoningTokens } from './estimate-unsent-reasoning-tokens.js';
import { replaysReasoning } from '../replays-reasoning.js';
import { resolveServiceTier, withheldTierWarning, withoutServiceTier } from './resolve-service-tier.js';
import { textStyles } from './text-styles.js';

/** A text-generation request as its inbound style parsed it. */
export interface TextInbound extends PromptTokens {
  style: TextStyleName;
  model: string;
  stream: boolean;
  /** The canonical request, parsed on first use: a same-style passthrough never needs it. */
  canonical(): CanonicalRequest;
  maxOutputTokens: number | undefined;
  /** The opaque reasoning the client replays, within the prompt counts (PromptText `opaqueTokens`). */
  opaquePromptTokens: number;
  /** The reasoning the client replays, within the prompt counts, as parts; undefined when there is none (PromptText `reasoningParts`). */
  reasoningParts: readonly CanonicalReasoningPart[] | undefined;
  warnings: string[];
  /** The client's body and bytes, as the client sent them. */
  body: Record<string, unknown>;
  rawBody: Buffer | undefined;
  /**
   * The body and bytes a same-style channel is sent: the client's, without the opaque reasoning another
   * vendor issued (without-foreign-reasoning.ts); worked out on first use.
   */
  passthroughSource(): { body: Record<string, unknown>; rawBody: Buffer | undefined };
  /** OpenAI clients' `stream_options.include_usage`. */
  includeUsage: boolean;
  /** Gemini clients that did not ask for `alt=sse` read a streamed JSON array. */
  clientFraming: 'sse' | 'json-array';
  /**
   * Same-style bytes for the upstream with the model mapped — and `outputLimit`, when given (the client
   * named no limit), as the style's output limit — or undefined when passthrough cannot serve.
   */
  passthroughBody(upstreamModel: string, outputLimit: number | undefined): string | Buffer | undefined;
}

const textChannelTypes: ReadonlySet<string> = new Set(['openai', 'anthropic', 'gemini']);
const geminiChannelTypes: ReadonlySet<string> = new Set(['gemini']);

/**
 * Chat requests only a Chat Completions upstream can serve: several choices (`n` > 1) or the legacy
 * `functions`. They are routed to Chat upstreams only (`isChatUpstream`), so the answer does not depend
 * on which channel of a mixed model is picked; where none serves the model, the conversion's own 400
 * explains why.
 */
function needsChatUpstream(inbound: TextInbound): boolean {
  if (inbound.style !== 'openai-chat') return false;
  const { n, functions, function_call: functionCall } = inbound.body;
  return (typeof n === 'number' && n > 1) || (functions !== undefined && functions !== null) || (functionCall !== undefined && functionCall !== null);
}

/**
 * The output the reservation covers: the client's limit (or the model's default budget) per choice, so
 * Chat's `n` choices, or Gemini's `candidateCount` candidates, reserve that many times it (the reservation
 * is the most a request can cost) — and, for a model that writes images, one picture's image tokens per
 * choice beside it: the limit does not hold a picture back (compute-picture-output-tokens.ts).
 */
function reservedOutputTokens(services: RelayServices, inbound: TextInbound, request: FastifyRequest): number | undefined {
  const counted = inbound.style === 'openai-chat' ? inbound.body.n : inbound.style === 'gemini' ? geminiCandidateCount(inbound.body) : undefined;
  const choices = typeof counted === 'number' && Number.isInteger(counted) && counted > 1 ? counted : 1;
  const picture = reservedPictureTokens(services, inbound, request);
  if (choices === 1 && picture === 0) return inbound.maxOutputTokens;
  const perChoice = inbound.maxOutputTokens ?? services.catalog.snapshot.outputBudgetFor(inbound.model);
  return (perChoice + picture) * choices;
}

/** One picture's image tokens, judged by the model's name and each name a channel that could serve it maps it to. */
function reservedPictureTokens(services: RelayServices, inbound: TextInbound, request: FastifyRequest): number {
  const snapshot = services.catalog.snapshot;
  const caller = request.caller;
  const candidates = candidateChannels(snapshot.channels, { group: caller?.group ?? '', model: inbound.model, pinnedChannelId: caller?.pinnedChannelId, channelTypes: textChannelTypes });
  const pricedImageOutput = snapshot.prices.get(inbound.model)?.imageOutput !== undefined;
  return pictureOutputTokens(pictureModelsOf(candidates, inbound.model), inbound.style, inbound.body, pricedImageOutput);
}

/**
 * The picture facts of a model's names on its candidate channels, read once per candidate list: a list
 * candidateChannels keeps is one group's and model's for the catalog snapshot's life, so its names are the
 * same for every request (a pinned key's list is made anew per request, and read anew).
 */
const pictureModelsByCandidates = new WeakMap<readonly ChannelRecord[], { model: string; pictures: PictureModels }>();
function pictureModelsOf(candidates: readonly ChannelRecord[], model: string): PictureModels {
  const known = pictureModelsByCandidates.get(candidates);
  if (known !== undefined && known.model === model) return known.pictures;
  const models = [model];
  for (const channel of candidates) {
    const mapping = resolveModelMapping(channel.modelMapping, model);
    if (mapping.ok && mapping.upstreamModel !== model) models.push(mapping.upstreamModel);
  }
  const pictures = readPictureModels(models);
  pictureModelsByCandidates.set(candidates, { model, pictures });
  return pictures;
}

/** A Gemini body's `generationConfig.candidateCount` (or the snake_case spelling Google also reads). */
function geminiCandidateCount(body: Record<string, unknown>): unknown {
  const config = body.generationConfig ?? body.generation_config;
  return isRecord(config) ? (config.candidateCount ?? config.candidate_count) : undefined;
}

/**
 * The searches a request's search tool is reserved. Gemini grounding is billed by the generation of the
 * model that answers: a 2.5 model a channel maps to Gemini 3 is billed per query, not once per prompt, so
 * each Gemini channel that could serve the request is asked what it sends, and the most searches win.
 */
function reservedWebSearches(services: RelayServices, inbound: TextInbound, request: FastifyRequest): number {
  const asked = declaredWebSearches(inbound.style, inbound.body, inbound.model);
  if (inbound.style !== 'gemini' || asked === 0) return asked;
  const caller = request.caller;
  const query = { group: caller?.group ?? '', model: inbound.model, pinnedChannelId: caller?.pinnedChannelId, channelTypes: geminiChannelTypes };
  let most = asked;
  for (const channel of candidateChannels(services.catalog.snapshot.channels, query)) {
    const mapping = resolveModelMapping(channel.modelMapping, inbound.model);
    if (mapping.ok) most = Math.max(most, declaredWebSearches('gemini', inbound.body, mapping.upstreamModel));
  }
  return most;
}

/**
 * The prompt estimate the reservation holds: the client's, less the replayed reasoning that no channel
 * that could serve the request is sent — a conversion drops thinking its upstream cannot verify or has no
 * field for (estimate-unsent-reasoning-tokens.ts), and the upstream never reads it. The least any
 * candidate drops, so the reservation covers whichever failover picks; a same-style candidate (the client's
 * body, cleaned of another vendor's reasoning only at its attempt) drops nothing here. A request without
 * replayed reasoning returns at once: no second pass over the body.
 */
function reservedPromptTokens(services: RelayServices, inbound: TextInbound, request: FastifyRequest, estimated: number): number {
  const parts = inbound.reasoningParts;
  if (parts === undefined) return estimated;
  const caller = request.caller;
  const candidates = candidateChannels(services.catalog.snapshot.channels, { group: caller?.group ?? '', model: inbound.model, pinnedChannelId: caller?.pinnedChannelId, channelTypes: textChannelTypes });
  const unsentByTarget = new Map<string, number>();
  let least: number | undefined;
  for (const channel of candidates) {
    const style = upstreamTextStyleOf(channel);
    const mapping = resolveModelMapping(channel.modelMapping, inbound.model);
    // A channel that cannot serve the request fails its attempt: it is sent nothing.
    if (style === undefined || !mapping.ok) continue;
    if (style === inbound.style) return estimated;
    const replays = style === 'openai-chat' && replaysReasoning(channel, mapping.upstreamModel);
    const target = `${style}/${replays}`;
    let unsent = unsentByTarget.get(target);
    if (unsent === undefined) {
      unsent = estimateUnsentReasoningTokens(parts, { style, replaysReasoning: replays });
      unsentByTarget.set(target, unsent);
    }
    if (unsent === 0) return estimated;
    least = least === undefined ? unsent : Math.min(least, unsent);
  }
  return Math.max(0, estimated - (least ?? 0));
}

/** An OpenAI channel that speaks Chat Completions upstream (not one set to the Responses API). */
function isChatUpstream(channel: ChannelRecord): boolean {
  return upstreamTextStyleOf(channel) === 'openai-chat';
}

/**
 * The channels a request may go to: any text channel, or, for a request only Chat can serve, the
 * channels whose upstream speaks Chat — an OpenAI channel set to the Responses API would refuse `n` > 1
 * as a Gemini or Anthropic one would, whatever its priority.
 */
function channelsFor(services: RelayServices, inbound: TextInbound, request: FastifyRequest): Pick<RelayPlan, 'channelTypes' | 'channelFilter'> {
  if (!needsChatUpstream(inbound)) return { channelTypes: textChannelTypes };
  const caller = request.caller;
  const query = { group: caller?.group ?? '', model: inbound.model, pinnedChannelId: caller?.pinnedChannelId, channelFilter: isChatUpstream };
  if (candidateChannels(services.catalog.snapshot.channels, query).length > 0) return { channelFilter: isChatUpstream };
  // No Chat channel: parsing for conversion refuses the request with the field that needs one.
  inbound.canonical();
  return { channelTypes: textChannelTypes };
}

/**
 * A Responses request that continues stored state (`previous_response_id`, `conversation`, stored items
 * its input names) goes to the channel holding it and reserves the context the upstream reads back; a
 * stored answer a Responses channel serves is remembered, with its output items, for the turn that
 * continues it.
 */
async function planContinuation(
  services: RelayServices,
  inbound: TextInbound,
  request: FastifyRequest,
): Promise<PromptTokens & Pick<RelayPlan, 'preferredChannelId' | 'preferredKeyFingerprint' | 'onAnswered'> & { releaseUnansweredClaim(): Promise<void> }> {
  const { body } = inbound;
  const ids = continuationIdsOf(body);
  const userId = request.caller?.user.id ?? 0;
  // A conversation neither the memory nor the table knows, let through (allow_unknown_conversations), is
  // claimed by this turn in the table before any upstream call; the claim names its channel at the first
  // answer, and is released when the request gets none.
  const { known, conversation, claim } = await recallAndClaimContinuation(services, ids, userId);
  // The history the conversation's row holds (conversation-owners.ts writes it as it doubles).
  let historyWritten = conversation?.historyWritten ?? 0;
  const prompt = withContext(inbound, known?.contextTokens ?? 0);
  const stored = body.store !== false;
  // Told at the answer's opening, at each output item it announces and at its end, with one key per
  // attempt: hashed once per key.
  let fingerprinted: { key: string; fingerprint: string } | undefined;
  // What was last written for this attempt (an attempt's meter has its own item list): an item's call
  // writes the item, not the answer again; its end writes every item once more, with the answer's output.
  let written: { items: string[]; itemCount: number; responseId: string | undefined; contextTokens: number; final: boolean } | undefined;
  const onAnswered = (channel: ChannelRecord, key: string, meter: UsageMeter) => {
    // Only a Responses channel stores what the client was given: a converted answer's id is the gateway's own.
    if (upstreamTextStyleOf(channel) !== 'openai-responses') return;
    if (fingerprinted?.key !== key) fingerprinted = { key, fingerprint: keyFingerprint(key) };
    if (written?.items !== meter.outputItemIds) written = { items: meter.outputItemIds, itemCount: 0, responseId: undefined, contextTokens: -1, final: false };
    const usage = meter.upstreamUsage;
    const outputTokens = usage === undefined ? meter.outputTally.charsSeen + meter.unreportedOutputTokens : usage.output.total;
    // Without a usage report: what this turn sent (its history included) and what it produced, by its characters.
    const contextTokens = usage === undefined ? prompt.estimatedPromptTokens + outputTokens : usage.input.total + outputTokens;
    const answer = { channelId: channel.id, keyFingerprint: fingerprinted.fingerprint, userId };
    claim.answered(answer);
    // Only a reported count is written: an estimate would hold the reserved bound of a reloaded history.
    if (usage !== undefined && ids.conversationId !== undefined) historyWritten = services.conversations.noteHistory(ids.conversationId, contextTokens, historyWritten);
    if (written.responseId !== meter.responseId || written.contextTokens !== contextTokens) {
      rememberAnswer(services.responses, ids, stored, { ...answer, responseId: meter.responseId, contextTokens, historyWritten });
      written.responseId = meter.responseId;
      written.contextTokens = contextTokens;
    }
    // Items of an answer not stored upstream cannot be read back: nothing to guard.
    if (!stored) return;
    const items = meter.outputItemIds;
    if (usage !== undefined && !written.final) {
      written.final = true;
      rememberOutputItems(services.responses, items, answer, outputTokens);
    } else if (items.length > written.itemCount) {
      rememberOutputItems(services.responses, items.slice(written.itemCount), answer, outputTokens);
    }
    written.itemCount = items.length;
  };
  return {
    estimatedPromptTokens: prompt.estimatedPromptTokens,
    countPromptTokens: prompt.countPromptTokens,
    promptImageTokens: prompt.promptImageTokens,
    preferredChannelId: known?.channelId,
    preferredKeyFingerprint: known?.keyFingerprint,
    onAnswered,
    releaseUnansweredClaim: claim.releaseIfUnanswered,
  };
}

/**
 * Notes on the attempt's meter what of the client's reasoning a same-style channel is not sent: another
 * vendor's, which the passthrough cleaning removed (without-foreign-reasoning.ts) — its opaque tokens and,
 * for a block or item dropped whole, its text; none when the client's body goes as sent.
 */
function noteUnsentOnPassthrough(meter: UsageMeter, inbound: TextInbound, sentBody: Record<string, unknown>): void {
  if (sentBody === inbound.body) {
    meter.unsentPromptTokens = 0;
    meter.unsentPromptTexts = [];
    return;
  }
  meter.unsentPromptTokens = Math.max(0, inbound.opaquePromptTokens - estimateSentOpaqueTokens(inbound.style, sentBody));
  meter.unsentPromptTexts = collectUnsentReasoningTexts(inbound.style, inbound.body, sentBody);
}

/**
 * Text generation in any style to any text channel (issue #5): same style → passthrough (bytes, with model
 * mapping and auth only); otherwise through the canonical model, part by part.
 */
export async function runTextRelay(services: RelayServices, inbound: TextInbound, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const context: ConversionContext = {
    newId: (prefix) => `${prefix}${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    now: Math.floor(services.now() / 1000),
    requestedModel: inbound.model,
    ...(inbound.style === 'openai-responses' ? { requestEcho: inbound.body } : {}),
    // Gemini returns thought text only when asked (thinkingConfig.includeThoughts).
    omitReasoningText: inbound.style === 'gemini' && inbound.canonical().reasoning?.includeThoughts !== true,
  };
  const inboundConverters = textStyles[inbound.style];
  const tier = resolveServiceTier(inbound.style, inbound.body, services.catalog.snapshot.prices.get(inbound.model));
  if (tier === 'withheld') inbound.warnings.push(withheldTierWarning(inbound.body.service_tier));
  // A Chat search-preview call (`web_search_options`) is billed its search once delivered: the answer has no count of it.
  const chatSearches = inbound.style === 'openai-chat' ? declaredWebSearches(inbound.style, inbound.body) : 0;
  const continued = inbound.style === 'openai-responses' ? await planContinuation(services, inbound, request) : undefined;
  // A claim of an unknown conversation that got no answer is left to the next request that does.
  const relayed = runRelayEnvelope(
    services,
    request,
    reply,
    {
      model: inbound.model,
      stream: inbound.stream,
      estimatedPromptTokens: reservedPromptTokens(services, inbound, request, continued?.estimatedPromptTokens ?? inbound.estimatedPromptTokens),
      countPromptTokens: continued?.countPromptTokens ?? inbound.countPromptTokens,
      promptImageTokens: continued?.promptImageTokens ?? inbound.promptImageTokens,
      preferredChannelId: continued?.preferredChannelId,
      preferredKeyFingerprint: continued?.preferredKeyFingerprint,
      onAnswered: continued?.onAnswered,
      maxOutputTokens: reservedOutputTokens(services, inbound, request),
      webSearches: reservedWebSearches(services, inbound, request),
      priorityTier: tier === 'priority',
      ...channelsFor(services, inbound, request),
      logStyle: inbound.style,
      warnings: inbound.warnings,
    },
    async (channel, key, tools) => {
      const upstreamStyle = upstreamTextStyleOf(channel);
      const mapping = resolveModelMapping(channel.modelMapping, inbound.model);
      if (upstreamStyle === undefined || !mapping.ok) {
        return { kind: 'failed', failure: { kind: 'connection', message: upstreamStyle === undefined ? `channel type ${channel.type} serves no text` : `model_mapping of channel ${channel.id} loops` } };
      }
      const upstreamModel = mapping.upstreamModel;
      tools.setUpstreamModel(upstreamModel);
      // Spread last in the attempt inputs below: V8 (Node 20) makes adding keys to a `{ ...common }` clone cost µs.
      const common = { services, channel, key, reply, meter: tools.meter, signal: tools.signal, clientHeaders: tools.clientHeaders(channel) };
      // A client that named no output limit gets the one its reservation covers: an upstream left to its own
      // (a reasoning model's 100k) could produce more than the balances pay for.
      const outputLimit = inbound.maxOutputTokens === undefined ? defaultMaxTokens(channel, upstreamModel, services) : undefined;
      // Sent with the Priority tier (the field goes upstream as asked on the same-style paths alone): an
      // answer cut before any event named its tier is billed at it (settle-request.ts).
      const askedPriority = tier === 'priority';
      if (upstreamStyle === inbound.style) {
        if (inbound.style === 'openai-chat') {
          if (askedPriority) tools.meter.askedTier = 'priority';
          const askForStreamUsage = inbound.stream && !inbound.includeUsage && channel.settings.stream_usage !== false;
          const limit = outputLimit === undefined ? undefined : { field: chatOutputLimitField(upstreamModel, channel.settings.max_tokens_field), tokens: outputLimit };
          const withheld = tier === 'withheld';
          const source = inbound.passthroughSource();
          noteUnsentOnPassthrough(tools.meter, inbound, source.body);
          const outcome = await attemptOpenaiUpstream({
            upstreamPath: openaiEndpoints.chat.upstreamPath,
            upstreamBody: buildUpstreamBody(withheld ? undefined : source.rawBody, withheld ? withoutServiceTier(source.body) : source.body, upstreamModel, askForStreamUsage, true, limit),
            stream: inbound.stream,
            clientWantsUsage: inbound.includeUsage,
            singleChoice: (openaiEndpoints.chat.choicesMade?.(inbound.body) ?? 1) === 1,
            // A 2xx error document is the channel's failure on every text route (passthrough or converted).
            errorDocumentFails: true,
            readsServiceTier: askedPriority ? true : undefined,
            ...common,
          });
          if (outcome.kind === 'served' && chatSearches > 0) tools.meter.noteWebSearches(chatSearches);
          return outcome;
        }
        const passthrough = inbound.passthroughBody(upstreamModel, outputLimit);
        noteUnsentOnPassthrough(tools.meter, inbound, inbound.passthroughSource().body);
        // (Only a Responses request gets here with a tier to withhold: its bytes are rewritten without it.)
        const bytes = tier === 'withheld' && passthrough !== undefined ? JSON.stringify(withoutServiceTier(JSON.parse(passthrough.toString()) as Record<string, unknown>)) : passthrough;
        if (bytes !== undefined) {
          if (askedPriority) tools.meter.askedTier = 'priority';
          return attemptPassthroughUpstream({
            style: upstreamStyle,
            converters: inboundConverters,
            body: bytes,
            upstreamModel,
            stream: inbound.stream,
            clientFraming: inbound.clientFraming,
            clientRequestHeaders: request.headers,
            ...common,
          });
        }
      }
      return attemptConvertedUpstream({
        upstreamStyle,
        upstream: textStyles[upstreamStyle],
        inbound: inboundConverters,
        clientStyle: inbound.style,
        request: inbound.canonical(),
        upstreamModel,
        clientStreams: inbound.stream,
        includeUsage: inbound.includeUsage,
        clientRequestHeaders: inbound.style === 'anthropic-messages' ? request.headers : {},
        clientFraming: inbound.clientFraming,
        context,
        warnings: inbound.warnings,
        clientOpaqueTokens: inbound.opaquePromptTokens,
        countUsageLocally: () => countUsageLocally(tools.admission, tools.meter),
        ...common,
      });
    },
    (channel, json) => upstreamTextStyleOf(channel) === inbound.style && json !== null && typeof json === 'object' && 'error' in json,
  );
  await (continued === undefined ? relayed : relayed.finally(() => continued.releaseUnansweredClaim()));
}
