import { GatewayError } from '../../errors/gateway-error.js';

/** The actions of a Midjourney-proxy task (protocols.md §1.5). */
export type MjAction =
  | 'IMAGINE'
  | 'UPSCALE'
  | 'VARIATION'
  | 'REROLL'
  | 'DESCRIBE'
  | 'BLEND'
  | 'ZOOM'
  | 'CUSTOM_ZOOM'
  | 'PAN'
  | 'INPAINT'
  | 'HIGH_VARIATION'
  | 'LOW_VARIATION'
  | 'SHORTEN'
  | 'SWAP_FACE'
  | 'MODAL'
  | 'UPLOAD'
  | 'VIDEO'
  | 'EDITS';

/** The model an action is priced as: `mj_` + the action in lower case; SWAP_FACE is `swap_face` (protocols.md §1.1). */
export function mjModelOf(action: MjAction): string {
  return action === 'SWAP_FACE' ? 'swap_face' : `mj_${action.toLowerCase()}`;
}

/** Actions whose code-21 answer means "open the modal" and is shown to the client as 21 (protocols.md §1.4). */
export function keepsModalCode(action: MjAction): boolean {
  return action === 'INPAINT' || action === 'CUSTOM_ZOOM';
}

/**
 * Pure: the action a button's `customId` asks for (protocols.md §1.3, new-api's parser):
 * `MJ::JOB::<verb>::<index>::<hash>[::SOLO]`, or `MJ::<Verb>::…` when the second part is not `JOB`.
 * An id of another form or an unknown verb is a 400 `unknown_action`.
 */
export function actionFromCustomId(customId: string): MjAction {
  const parts = customId.split('::');
  if (parts[0] !== 'MJ' || parts.length < 3) throw unknownAction(customId);
  const verb = ((parts[1] === 'JOB' ? parts[2] : parts[1]) ?? '').toLowerCase();
  if (verb.includes('upsample')) return 'UPSCALE';
  if (verb === 'variation') return 'VARIATION';
  if (verb === 'low_variation') return 'LOW_VARIATION';
  if (verb === 'high_variation') return 'HIGH_VARIATION';
  if (verb.includes('pan')) return 'PAN';
  if (verb.includes('reroll')) return 'REROLL';
  if (verb === 'outpaint') return 'ZOOM';
  if (verb === 'customzoom') return 'CUSTOM_ZOOM';
  if (verb === 'inpaint') return 'INPAINT';
  throw unknownAction(customId);
}

function unknownAction(customId: string): GatewayError {
  return new GatewayError('invalid_request', `unknown_action: ${customId.slice(0, 120)}`, { param: 'customId' });
}

/** The buttons of `/submit/change` and `simple-change`: U1–U4, V1–V4 and R (reroll, no index). */
export type ChangeAction = 'UPSCALE' | 'VARIATION' | 'REROLL';

/**
 * Pure: a `simple-change` `content`, `"<taskId> U2"` / `"<taskId> V3"` / `"<taskId> R"` (protocols.md §1.2);
 * undefined when it is not of that form.
 */
export function readSimpleChange(content: string): { taskId: string; action: ChangeAction; index?: number } | undefined {
  const match = /^\s*(\S+)\s+([UVR])([1-4])?\s*$/i.exec(content);
  if (match === null) return undefined;
  const [, taskId, letter, digit] = match as unknown as [string, string, string, string | undefined];
  const action: ChangeAction = letter.toUpperCase() === 'U' ? 'UPSCALE' : letter.toUpperCase() === 'V' ? 'VARIATION' : 'REROLL';
  if (action === 'REROLL') return digit === undefined ? { taskId, action } : undefined;
  if (digit === undefined) return undefined;
  return { taskId, action, index: Number(digit) };
}
