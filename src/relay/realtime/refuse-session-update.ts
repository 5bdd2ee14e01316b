import { isRecord } from '../../convert/shared/is-record.js';

/** Why a client's `session.update` is not sent upstream: the field at fault and what the client is told. */
export interface SessionUpdateRefusal {
  param: string;
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
export function refuseSessionUpdate(event: Record<string, unknown>, session: SessionModels): SessionUpdateRefusal | undefined {
  if ((event.type !== 'session.update' && event.type !== 'transcription_session.update') || !isRecord(event.session)) return undefined;
  const update = event.session;
  if (typeof update.model === 'string' && !session.sessionModels.includes(update.model)) {
    return { param: 'session.model', message: `This session was opened for model ${session.sessionModels[0] ?? ''}; it cannot be changed to ${update.model} (open a new session with ?model=).` };
  }
  const audioInput = isRecord(update.audio) && isRecord(update.audio.input) ? update.audio.input : undefined;
  const candidates: [string, unknown][] = [
    ['session.audio.input.transcription.model', audioInput !== undefined && isRecord(audioInput.transcription) ? audioInput.transcription.model : undefined],
    ['session.input_audio_transcription.model', isRecord(update.input_audio_transcription) ? update.input_audio_transcription.model : undefined],
  ];
  for (const [param, model] of candidates) {
    if (typeof model === 'string' && model !== '' && !session.allowsModel(model)) return { param, message: `This API key may not use model ${model}.` };
  }
  return undefined;
}
