import { isRecord } from '../../convert/shared/is-record.js';
import { quoteClientText } from '../../errors/quote-client-text.js';
import { findRepeatedKey } from '../../http/middleware/find-repeated-key.js';

/** Why a client's `session.update` is not sent upstream: the field at fault, the error's code and what the client is told. */
export interface SessionUpdateRefusal {
  param: string;
  code: 'model_not_allowed' | 'invalid_type' | 'duplicate_key';
  message: string;
}

export interface SessionModels {
  /** The names the session was opened for: the `?model=` admitted and priced, and what its channel calls it. */
  sessionModels: readonly string[];
  /** Whether the caller's key may use a model now (its `model_limits`, read again at each update). */
  allowsModel(model: string): boolean;
}

/**
 * Pure: why a client's `session.update` (or beta `transcription_session.update`) may not reach the upstream,
 * or undefined when it may. A session is admitted, held and priced for the `?model=` of its handshake, and
 * the key's `model_limits` were checked against that name only; an update that names another session model
 * (`session.model`) or a transcription model the key may not use (GA `session.audio.input.transcription.model`,
 * beta `session.input_audio_transcription.model`, which the upstream's account then runs on every committed
 * buffer) would open a model the key was never allowed, on the operator's account.
 */
export function refuseSessionUpdate(event: Record<string, unknown>, session: SessionModels, frameText?: () => string): SessionUpdateRefusal | undefined {
  if ((event.type !== 'session.update' && event.type !== 'transcription_session.update') || !isRecord(event.session)) return undefined;
  // The frame goes upstream as its bytes: a key named twice (`"model":"a","model":"b"`) was checked as its
  // last value (JSON.parse) while an upstream that keeps the first would run the other. No one meaning: refused.
  const repeated = frameText === undefined ? undefined : findRepeatedKey(frameText());
  if (repeated !== undefined) {
    const key = quoteClientText(repeated);
    return { param: key, code: 'duplicate_key', message: `The event names the key "${key}" more than once in one object; each key may appear once.` };
  }
  const update = event.session;
  if (typeof update.model === 'string' && !session.sessionModels.includes(update.model)) {
    return { param: 'session.model', code: 'model_not_allowed', message: `This session was opened for model ${session.sessionModels[0] ?? ''}; it cannot be changed to ${quoteClientText(update.model)} (open a new session with ?model=).` };
  }
  const audioInput = isRecord(update.audio) && isRecord(update.audio.input) ? update.audio.input : undefined;
  const candidates: [string, unknown][] = [
    ['session.audio.input.transcription.model', audioInput !== undefined && isRecord(audioInput.transcription) ? audioInput.transcription.model : undefined],
    ['session.input_audio_transcription.model', isRecord(update.input_audio_transcription) ? update.input_audio_transcription.model : undefined],
  ];
  // A model that is not a string cannot be checked against the session's or the key's: not sent on (OpenAI refuses it too).
  for (const [param, model] of [['session.model', update.model], ...candidates] as [string, unknown][]) {
    if (model !== undefined && model !== null && typeof model !== 'string') return { param, code: 'invalid_type', message: `Invalid type for '${param}': expected a string, but got ${describeType(model)} instead.` };
  }
  for (const [param, model] of candidates) {
    if (typeof model === 'string' && model !== '' && !session.allowsModel(model)) return { param, code: 'model_not_allowed', message: `This API key may not use model ${quoteClientText(model)}.` };
  }
  return undefined;
}

/** The JSON type of a value, as OpenAI's `invalid_type` messages name it. */
function describeType(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a decimal';
  if (typeof value === 'boolean') return 'a boolean';
  return 'an object';
}
