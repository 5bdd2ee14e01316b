import { GatewayError } from '../../errors/gateway-error.js';
import { invalidParameter, missingParameter } from '../validate-body.js';
import { actionFromCustomId, mjModelOf, readSimpleChange, type MjAction } from './mj-actions.js';

/** The submit routes (`/mj/submit/<route>`, and `swap` for `/mj/insight-face/swap`), protocols.md §1.1. */
export const mjSubmitRoutes = ['imagine', 'change', 'simple-change', 'action', 'modal', 'shorten', 'describe', 'blend', 'edits', 'video', 'upload-discord-images', 'swap'] as const;
export type MjSubmitRoute = (typeof mjSubmitRoutes)[number];

/** A submit that continues one of the caller's tasks (a button on its image, the modal it opened). */
export interface MjOrigin {
  /** The public id the client named. */
  publicId: string;
  /** `success`: the task must have finished (its image is what is changed); `open`: it must still wait (a modal). */
  needs: 'success' | 'open';
}

export interface MjSubmit {
  route: MjSubmitRoute;
  action: MjAction;
  /** The model the task is priced as (`mj_imagine`…). */
  model: string;
  /** The text for the log's estimate. */
  prompt: string;
  /** The path on the proxy. */
  upstreamPath: string;
  /** The client's body without `notifyHook` and `accountFilter`; an origin's id is still the public one. */
  upstreamBody: Record<string, unknown>;
  origin?: MjOrigin;
  /** Kept on the row and shown by fetch: the action, and the client's own `state`, `customId`, `botType`. */
  properties: Record<string, unknown>;
}

const botTypes = new Set(['MID_JOURNEY', 'NIJI_JOURNEY']);
const blendDimensions = new Set(['PORTRAIT', 'SQUARE', 'LANDSCAPE']);
const changeActions = new Set(['UPSCALE', 'VARIATION', 'REROLL']);

/**
 * Pure: one `/mj/submit/*` body (protocols.md §1.2), checked before anything is reserved: each route's
 * required fields, the types of the fields it reads, `index` 1–4 for U/V, 2–5 images for a blend, a
 * known action in `customId`. `notifyHook` is not sent (the proxy would call the client with its own ids,
 * which this gateway never shows) and neither is `accountFilter` (the proxy's accounts are the operator's).
 */
export function readMjSubmit(route: MjSubmitRoute, body: Record<string, unknown>): MjSubmit {
  for (const name of ['prompt', 'state', 'taskId', 'customId', 'content', 'base64', 'maskBase64', 'sourceBase64', 'targetBase64', 'image', 'motion', 'dimensions', 'botType', 'action']) {
    const value = body[name];
    if (value !== undefined && value !== null && typeof value !== 'string') throw invalidParameter(name, `Expected string, received ${Array.isArray(value) ? 'array' : typeof value}`);
  }
  const images = body.base64Array;
  if (images !== undefined && images !== null && (!Array.isArray(images) || images.some((image) => typeof image !== 'string'))) throw invalidParameter('base64Array', 'must be an array of data URIs');
  if (typeof body.botType === 'string' && !botTypes.has(body.botType)) throw invalidParameter('botType', 'must be MID_JOURNEY or NIJI_JOURNEY');
  const upstreamBody = { ...body };
  delete upstreamBody.notifyHook;
  delete upstreamBody.accountFilter;
  const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '');
  const imageCount = Array.isArray(images) ? images.length : 0;
  const submit = (action: MjAction, extra: { origin?: MjOrigin; properties?: Record<string, unknown> } = {}): MjSubmit => ({
    route,
    action,
    model: mjModelOf(action),
    prompt: text('prompt'),
    upstreamPath: route === 'swap' ? '/mj/insight-face/swap' : `/mj/submit/${route}`,
    upstreamBody,
    ...(extra.origin === undefined ? {} : { origin: extra.origin }),
    properties: {
      action,
      ...(typeof body.state === 'string' ? { state: body.state } : {}),
      ...(typeof body.botType === 'string' ? { botType: body.botType } : {}),
      ...extra.properties,
    },
  });
  const required = (name: string): string => {
    const value = text(name);
    if (value.trim() === '') throw missingParameter(name);
    return value;
  };

  switch (route) {
    case 'imagine':
      required('prompt');
      return submit('IMAGINE');
    case 'shorten':
      required('prompt');
      return submit('SHORTEN');
    case 'edits':
      required('prompt');
      return submit('EDITS');
    case 'describe':
      if (text('base64') === '' && imageCount === 0) throw missingParameter('base64');
      return submit('DESCRIBE');
    case 'blend':
      if (imageCount < 2 || imageCount > 5) throw invalidParameter('base64Array', 'a blend takes 2 to 5 images');
      if (typeof body.dimensions === 'string' && !blendDimensions.has(body.dimensions)) throw invalidParameter('dimensions', 'must be PORTRAIT, SQUARE or LANDSCAPE');
      return submit('BLEND');
    case 'swap':
      required('sourceBase64');
      required('targetBase64');
      return submit('SWAP_FACE');
    case 'upload-discord-images':
      if (imageCount === 0) throw missingParameter('base64Array');
      return submit('UPLOAD');
    case 'change': {
      const taskId = required('taskId');
      const action = required('action').toUpperCase();
      if (!changeActions.has(action)) throw invalidParameter('action', 'must be UPSCALE, VARIATION or REROLL');
      const index = readIndex(body.index, action !== 'REROLL');
      upstreamBody.action = action;
      return submit(action as MjAction, { origin: { publicId: taskId, needs: 'success' }, properties: index === undefined ? {} : { index } });
    }
    case 'simple-change': {
      const change = readSimpleChange(required('content'));
      if (change === undefined) throw invalidParameter('content', 'must be "<taskId> U1…U4", "<taskId> V1…V4" or "<taskId> R"');
      return submit(change.action, { origin: { publicId: change.taskId, needs: 'success' }, properties: change.index === undefined ? {} : { index: change.index } });
    }
    case 'action': {
      const taskId = required('taskId');
      const customId = required('customId');
      return submit(actionFromCustomId(customId), { origin: { publicId: taskId, needs: 'success' }, properties: { customId } });
    }
    case 'modal':
      return submit('MODAL', { origin: { publicId: required('taskId'), needs: 'open' } });
    case 'video': {
      if (typeof body.motion === 'string' && body.motion !== 'low' && body.motion !== 'high') throw invalidParameter('motion', 'must be low or high');
      const taskId = text('taskId');
      if (taskId === '') {
        if (text('prompt').trim() === '' && text('image') === '') throw missingParameter('prompt');
        return submit('VIDEO');
      }
      const index = readIndex(body.index, false);
      return submit('VIDEO', { origin: { publicId: taskId, needs: 'success' }, properties: index === undefined ? {} : { index } });
    }
    default:
      throw new GatewayError('route_not_found', `Unknown Midjourney submit route: ${String(route)}`);
  }
}

/** `index`: an integer 1–4 (new-api refuses 0 as `index_is_required`); undefined when absent and not needed. */
function readIndex(value: unknown, needed: boolean): number | undefined {
  if (value === undefined || value === null) {
    if (needed) throw new GatewayError('invalid_request', 'index_is_required: U and V need an index from 1 to 4.', { param: 'index' });
    return undefined;
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 4) throw invalidParameter('index', 'must be an integer from 1 to 4');
  return value;
}
