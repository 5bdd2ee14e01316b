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
 */
export type OpaqueReasoningKind = 'signature' | 'redacted';
export interface OpaqueReasoning {
  kind: OpaqueReasoningKind;
  value: string;
  issuer: ReasoningIssuer | undefined;
}
export interface NativeOpaque {
  kind: OpaqueReasoningKind;
  issuer: ReasoningIssuer;
}

const tagPattern = /^(signature|redacted):(?:(anthropic|google|openai):)?/;

/** The string a client field holds for `opaque`, given what the field natively holds. */
export function formatOpaqueReasoning(opaque: OpaqueReasoning, native: NativeOpaque): string {
  // Of no known issuer, it goes wherever its kind goes (isReplayableTo), so it needs no tag in a field of its kind.
  if (opaque.kind === native.kind && (opaque.issuer === native.issuer || opaque.issuer === undefined)) return opaque.value;
  return `${opaque.kind}:${opaque.issuer === undefined ? '' : `${opaque.issuer}:`}${opaque.value}`;
}

/** A client field's string → what it carries (the inverse of formatOpaqueReasoning). */
export function parseOpaqueReasoning(text: string, native: NativeOpaque): OpaqueReasoning {
  const tag = tagPattern.exec(text);
  if (tag === null) return { kind: native.kind, value: text, issuer: native.kind === 'redacted' ? redactedIssuerOf(text, native.issuer) : native.issuer };
  const kind = tag[1] as OpaqueReasoningKind;
  const value = text.slice(tag[0].length);
  const issuer = tag[2] as ReasoningIssuer | undefined;
  return { kind, value, issuer: issuer ?? (kind === 'redacted' ? redactedIssuerOf(value, undefined) : undefined) };
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

/** The canonical reasoning fields for `opaque`. */
export function toReasoningFields(opaque: OpaqueReasoning): Pick<CanonicalReasoningPart, 'signature' | 'redactedData' | 'issuer'> {
  const issuer = opaque.issuer === undefined ? {} : { issuer: opaque.issuer };
  return opaque.kind === 'signature' ? { signature: opaque.value, ...issuer } : { redactedData: opaque.value, ...issuer };
}

/** The stream part for `opaque`. */
export function toReasoningStreamPart(opaque: OpaqueReasoning): Extract<CanonicalStreamPart, { type: 'reasoning-signature' | 'reasoning-redacted' }> {
  const issuer = opaque.issuer === undefined ? {} : { issuer: opaque.issuer };
  return opaque.kind === 'signature' ? { type: 'reasoning-signature', signature: opaque.value, ...issuer } : { type: 'reasoning-redacted', data: opaque.value, ...issuer };
}
