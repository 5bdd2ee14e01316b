import { GatewayError } from '../../errors/gateway-error.js';
import { invalidParameter, missingParameter } from '../validate-body.js';

/** Suno's two task kinds (protocols.md §2), and the models they are priced as. */
export type SunoAction = 'MUSIC' | 'LYRICS';
export const sunoModels: Record<SunoAction, string> = { MUSIC: 'suno_music', LYRICS: 'suno_lyrics' };

export interface SunoRequest {
  action: SunoAction;
  model: string;
  /** The text the task is made from (lyrics, or the description), for the log's estimate. */
  prompt: string;
  /** The body sent upstream: the client's, without `notify_hook` and `call_back_url`. */
  upstreamBody: Record<string, unknown>;
}

/**
 * Pure: a `POST /suno/submit/{action}` (protocols.md §2). The action is `music` or `lyrics` in any case
 * (else 400 `invalid_action`); lyrics need `prompt`, music `prompt` (custom lyrics) or
 * `gpt_description_prompt`; text fields must be strings, `make_instrumental` a boolean, `continue_at` a
 * number. `notify_hook` (and the older `call_back_url`) is not sent: the upstream would call the client
 * with its own ids, which this gateway never shows (the client polls `/suno/fetch` instead).
 */
export function readSunoRequest(actionParam: string, body: Record<string, unknown>): SunoRequest {
  const action = actionParam.toUpperCase();
  if (action !== 'MUSIC' && action !== 'LYRICS') throw new GatewayError('invalid_request', `invalid_action: ${actionParam.slice(0, 32)} (use music or lyrics)`);
  for (const name of ['prompt', 'gpt_description_prompt', 'mv', 'title', 'tags', 'continue_clip_id', 'task_id']) {
    const value = body[name];
    if (value !== undefined && value !== null && typeof value !== 'string') throw invalidParameter(name, `Expected string, received ${Array.isArray(value) ? 'array' : typeof value}`);
  }
  if (body.make_instrumental !== undefined && typeof body.make_instrumental !== 'boolean') throw invalidParameter('make_instrumental', 'Expected boolean');
  if (body.continue_at !== undefined && body.continue_at !== null && (typeof body.continue_at !== 'number' || !Number.isFinite(body.continue_at) || body.continue_at < 0)) {
    throw invalidParameter('continue_at', 'Expected a number of seconds');
  }
  const prompt = typeof body.prompt === 'string' ? body.prompt : '';
  const description = typeof body.gpt_description_prompt === 'string' ? body.gpt_description_prompt : '';
  if (action === 'LYRICS' && prompt.trim() === '') throw missingParameter('prompt');
  if (action === 'MUSIC' && prompt.trim() === '' && description.trim() === '') throw missingParameter('prompt');
  const upstreamBody = { ...body };
  delete upstreamBody.notify_hook;
  delete upstreamBody.call_back_url;
  return { action, model: sunoModels[action], prompt: `${prompt} ${description}`.trim(), upstreamBody };
}
