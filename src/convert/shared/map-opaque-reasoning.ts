import type { CanonicalReasoningPart, ReasoningIssuer } from '../../canonical/canonical-request.js';
import type { CanonicalStreamPart } from '../../canonical/canonical-stream-part.js';

/**
 * Opaque reasoning (a signature, or redacted / encrypted reasoning) can only be verified by the vendor family
 * that issued it: Anthropic answers 400 "Invalid signature in thinking block" to another's signature, Gemini
 * refuses a corrupted thought signature, OpenAI refuses encrypted content it did not encrypt. Every client
 * field that carries such data has one native kind and issuer (Anthropic `thinking.signature`: an Anthropic
 * signature; Gemini `thoughtSignature` and Chat `extra_content.google.thought_signature`: a Google one;
 * Responses `encrypted_content`: OpenAI's encrypted reasoning), written as is. Anything else the gateway
 * hands a client there goes behind a tag naming its kind and issuer, `signature:google:…`,
 * `redacted:openai:…`, so the next turn knows where it may go. No vendor's value holds a colon (base64,
 * base64url, Fernet `gAAAA…`), so a tag cannot be mistaken for one.
 *
 * Before the issuer was tagged, the gateway wrote `redacted:…` (Gemini) and `signature:…` (Responses) with no
 * issuer, and other vendors' values untagged in a field. Those are read as follows: an untagged value is the
 * field's native one; redacted data without an issuer is OpenAI's when it is a Fernet token (`gAAAAA`, how
 * OpenAI's encrypted content always begins), else Anthropic's (the only other vendor that redacts); a
 * signature without an issuer has none (`undefined`: it is sent wherever a signature goes, as it was).
 *
 * Anthropic verifies a thinking block's text with its signature: a block that differs in any way from what it
 * returned (the text edited, re-serialized, merged or left out) is refused, 400 "Invalid `signature` in
 * `thinking` block" (Anthropic staff on anthropics/anthropic-sdk-python#1598). A Gemini client holds the
 * thinking as a `thought` part (only with includeThoughts), a Responses client as a summary: display text
 * that Google and OpenAI never check, so their clients may hand it back changed or not at all. So an
 * Anthropic signature goes into such a field with the text it signs, `thinking:anthropic:<signature>:<base64
 * of the text>`, and the next turn rebuilds the block from it, whatever text the client replays beside it.
 * `signature:anthropic:…` (given out before, or for empty thinking) is read as it was.
 */
export type OpaqueReasoningKind = 'signature' | 'redacted';
export interface OpaqueReasoning {
  kind: OpaqueReasoningKind;
  value: string;
  issuer: ReasoningIssuer | undefined;
  /** The thinking text a signature signs, carried beside it where its vendor verifies the two together (Anthropic). */
  thinking?: string;
}
export interface NativeOpaque {
  kind: OpaqueReasoningKind;
  issuer: ReasoningIssuer;
}

const tagPattern = /^(signature|redacted|thinking):(?:(anthropic|google|openai):)?/;

/** The one vendor that verifies a thinking text against its signature. */
const textVerifyingIssuer: ReasoningIssuer = 'anthropic';

/** The string a client field holds for `opaque`, given what the field natively holds. */
export function formatOpaqueReasoning(opaque: OpaqueReasoning, native: NativeOpaque): string {
  // Of no known issuer, it goes wherever its kind goes (isReplayableTo), so it needs no tag in a field of its kind.
  if (opaque.kind === native.kind && (opaque.issuer === native.issuer || opaque.issuer === undefined)) return opaque.value;
  if (opaque.kind === 'signature' && opaque.issuer === textVerifyingIssuer && opaque.thinking !== undefined && opaque.thinking !== '') {
    // Neither a signature (base64) nor base64 text holds a colon, so the first one after the tag splits them.
    return `thinking:${opaque.issuer}:${opaque.value}:${Buffer.from(opaque.thinking, 'utf8').toString('base64')}`;
  }
  return `${opaque.kind}:${opaque.issuer === undefined ? '' : `${opaque.issuer}:`}${opaque.value}`;
}

/** A client field's string → what it carries (the inverse of formatOpaqueReasoning). */
export function parseOpaqueReasoning(text: string, native: NativeOpaque): OpaqueReasoning {
  const tag = tagPattern.exec(text);
  if (tag === null) return { kind: native.kind, value: text, issuer: native.kind === 'redacted' ? redactedIssuerOf(text, native.issuer) : native.issuer };
  const value = text.slice(tag[0].length);
  const issuer = tag[2] as ReasoningIssuer | undefined;
  if (tag[1] === 'thinking') return parseSignedThinking(value, issuer);
  const kind = tag[1] as OpaqueReasoningKind;
  return { kind, value, issuer: issuer ?? (kind === 'redacted' ? redactedIssuerOf(value, undefined) : undefined) };
}

/** `<signature>:<base64 text>` after a `thinking:<issuer>:` tag; without the text part, a signature alone. */
function parseSignedThinking(value: string, issuer: ReasoningIssuer | undefined): OpaqueReasoning {
  const colon = value.indexOf(':');
  if (colon === -1) return { kind: 'signature', value, issuer };
  return { kind: 'signature', value: value.slice(0, colon), issuer, thinking: Buffer.from(value.slice(colon + 1), 'base64').toString('utf8') };
}

/** OpenAI's encrypted reasoning is a Fernet token (version byte 0x80, base64url `gAAAAA`). */
function redactedIssuerOf(value: string, fallback: ReasoningIssuer | undefined): ReasoningIssuer {
  if (value.startsWith('gAAAAA')) return 'openai';
  return fallback === 'openai' ? 'openai' : 'anthropic';
}

/** Whether opaque reasoning of `issuer` may be sent to an upstream of `family`: its own, or of no known issuer (as before tags). */
export function isReplayableTo(issuer: ReasoningIssuer | undefined, family: ReasoningIssuer): boolean {
  return issuer === undefined || issuer === family;
}

/** A reasoning part's opaque fields, and its text when the opaque value carries the text it signs. */
export type ReasoningFields = Pick<CanonicalReasoningPart, 'signature' | 'redactedData' | 'issuer'> & { text?: string };

/**
 * The canonical reasoning fields for `opaque`. A signature that carries its thinking text sets `text` too:
 * spread over a reasoning part, it replaces whatever text the client replayed (see the top of this file).
 */
export function toReasoningFields(opaque: OpaqueReasoning): ReasoningFields {
  const issuer = opaque.issuer === undefined ? {} : { issuer: opaque.issuer };
  if (opaque.kind === 'redacted') return { redactedData: opaque.value, ...issuer };
  return { ...(opaque.thinking === undefined ? {} : { text: opaque.thinking }), signature: opaque.value, ...issuer };
}

/** The stream part for `opaque`. */
export function toReasoningStreamPart(opaque: OpaqueReasoning): Extract<CanonicalStreamPart, { type: 'reasoning-signature' | 'reasoning-redacted' }> {
  const issuer = opaque.issuer === undefined ? {} : { issuer: opaque.issuer };
  return opaque.kind === 'signature' ? { type: 'reasoning-signature', signature: opaque.value, ...issuer } : { type: 'reasoning-redacted', data: opaque.value, ...issuer };
}
