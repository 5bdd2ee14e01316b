import { carriedAnthropicRequestFields, carriedAnthropicToolFields } from '../../convert/anthropic-messages/parse-anthropic-messages-request.js';
import { isRecord } from '../../convert/shared/is-record.js';
import { estimatedTokensPerImage } from '../count-tokens.js';
import { estimatedFileTokens, PdfScanBudget } from '../estimate-attachment-tokens.js';
import { estimateOpaqueTokens } from '../estimate-opaque-tokens.js';
import type { PromptText } from '../openai/collect-prompt-text.js';

/** Assistant blocks the canonical parser carries (parse-anthropic-messages-content.ts); any other is dropped. */
const carriedAssistantBlocks = new Set(['text', 'thinking', 'redacted_thinking', 'tool_use']);

/** Keys of a dropped block that hold no text the model reads (ids, kinds, base64 data, cache settings). */
const unreadKeys = new Set(['type', 'id', 'tool_use_id', 'cache_control', 'citations', 'media_type', 'signature', 'data', 'file_id']);

/** Opaque fields Anthropic hands back to be replayed (a web search result's page): not text, but the page it stands for is billed. */
const opaqueKeys = new Set(['encrypted_content', 'encrypted_index']);

/**
 * Keys of a dropped definition (a server tool, an MCP server) the model never reads: a caching mark, and
 * the credential Anthropic hands the MCP server (a long token, which a local count would otherwise bill).
 */
const unreadDefinitionKeys = new Set(['cache_control', 'authorization_token']);

/** How deep a dropped block is read: real ones nest three or four levels. */
const maxDepth = 32;

interface Tally {
  texts: string[];
  /** Non-image extra tokens (files, opaque pages). */
  extraTokens: number;
  imageTokens: number;
  budget: PdfScanBudget;
}

/**
 * Pure: the prompt an Anthropic upstream reads (and bills) in what the canonical parser drops. In
 * `messages[].content`: a `search_result` or other unknown user block, a non-text/image/document block in a
 * `tool_result`, a `document` with a `content` or `file` source, an image given by `file_id`, an assistant
 * `web_search_tool_result` / `server_tool_use` / … block, and a document's `context`. Among the definitions:
 * a server tool (`web_search_…`, `bash_…`, `mcp_toolset`, …), a custom tool's fields beyond name,
 * description and schema (`input_examples`, …), and every top-level field the parser does not carry
 * (`mcp_servers`, `container`, …). A converted upstream never sees them, but a passthrough sends the
 * client's bytes as they are, so the estimate (and the local count) must hold them. Reads the already-parsed
 * body: dropped blocks' text as text, an image or a file given by id at the flat 1,000, an inline PDF by its
 * pages, an opaque `encrypted_content` at a token per 4 characters (estimate-opaque-tokens.ts); a dropped
 * definition as its JSON, as the canonical tools are counted (collect-canonical-prompt-text.ts).
 */
export function collectDroppedAnthropicPromptText(body: Record<string, unknown>): PromptText {
  const tally: Tally = { texts: [], extraTokens: 0, imageTokens: 0, budget: new PdfScanBudget() };
  readDroppedBlocks(body.messages, tally);
  readDroppedDefinitions(body, tally);
  const texts = tally.texts.length === 0 ? [] : [tally.texts.join('\n')];
  return { texts, extraTokens: tally.extraTokens, imageTokens: tally.imageTokens };
}

function readDroppedBlocks(messages: unknown, tally: Tally): void {
  for (const message of Array.isArray(messages) ? messages : []) {
    if (!isRecord(message) || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (!isRecord(block)) continue;
      if (message.role === 'assistant') {
        if (!carriedAssistantBlocks.has(String(block.type))) readDropped(block, tally, 0);
      } else if (block.type === 'tool_result') {
        if (Array.isArray(block.content)) for (const inner of block.content) if (isRecord(inner)) readUserBlock(inner, tally);
      } else readUserBlock(block, tally);
    }
  }
}

/**
 * The server tools, the custom tools' uncarried fields and the uncarried top-level fields, each as its JSON:
 * Anthropic puts them in the prompt (an MCP server's own tool list too, which the gateway cannot see and
 * leaves to the upstream's usage report).
 */
function readDroppedDefinitions(body: Record<string, unknown>, tally: Tally): void {
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    if (!isRecord(tool)) continue;
    if (tool.type != null && tool.type !== 'custom') {
      tally.texts.push(definitionText(tool));
      continue;
    }
    for (const [key, field] of Object.entries(tool)) if (!carriedAnthropicToolFields.has(key)) tally.texts.push(definitionText(field));
  }
  for (const [key, field] of Object.entries(body)) if (!carriedAnthropicRequestFields.has(key)) tally.texts.push(definitionText(field));
}

/** A definition's JSON without the keys the model never reads (`''` for what has no JSON). */
function definitionText(value: unknown): string {
  return JSON.stringify(value, (key, field: unknown) => (unreadDefinitionKeys.has(key) ? undefined : field)) ?? '';
}

/** A user block (or a block inside a tool result): text, base64/URL images and base64/URL/text documents are carried. */
function readUserBlock(block: Record<string, unknown>, tally: Tally): void {
  switch (block.type) {
    case 'text':
      return;
    case 'image':
      if (sourceType(block) === 'file') tally.imageTokens += estimatedTokensPerImage;
      return;
    case 'document': {
      const source = sourceType(block);
      if (source === 'content' || source === 'file') readDropped(block, tally, 0);
      else if (typeof block.context === 'string') tally.texts.push(block.context);
      return;
    }
    default:
      readDropped(block, tally, 0);
  }
}

function sourceType(block: Record<string, unknown>): unknown {
  return isRecord(block.source) ? block.source.type : undefined;
}

/** Every text of a dropped value, its images and files at their estimates. */
function readDropped(value: unknown, tally: Tally, depth: number): void {
  if (depth > maxDepth) return;
  if (typeof value === 'string') {
    tally.texts.push(value);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) readDropped(item, tally, depth + 1);
    return;
  }
  if (!isRecord(value)) return;
  if (value.type === 'image') {
    tally.imageTokens += estimatedTokensPerImage;
    return;
  }
  if (value.type === 'document' && isRecord(value.source)) readDocumentSource(value.source, tally, depth);
  for (const [key, field] of Object.entries(value)) {
    if (unreadKeys.has(key) || (key === 'source' && isRecord(field))) continue;
    if (opaqueKeys.has(key)) {
      if (typeof field === 'string') tally.extraTokens += estimateOpaqueTokens(field);
      continue;
    }
    readDropped(field, tally, depth + 1);
  }
}

/** A dropped document's source: its text, its content blocks, or the attachment estimate. */
function readDocumentSource(source: Record<string, unknown>, tally: Tally, depth: number): void {
  switch (source.type) {
    case 'text':
      if (typeof source.data === 'string') tally.texts.push(source.data);
      return;
    case 'content':
      readDropped(source.content, tally, depth + 1);
      return;
    case 'base64':
      tally.extraTokens += typeof source.data === 'string' ? estimatedFileTokens({ kind: 'base64', mediaType: String(source.media_type ?? ''), data: source.data }, undefined, tally.budget) : estimatedTokensPerImage;
      return;
    default:
      // A URL or a Files API id: the flat figure, as every linked attachment.
      tally.extraTokens += estimatedTokensPerImage;
  }
}
