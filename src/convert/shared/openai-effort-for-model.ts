/** OpenAI's reasoning efforts, least to most. */
const openaiEfforts = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export type OpenaiEffort = (typeof openaiEfforts)[number];

/**
 * The efforts each OpenAI reasoning family takes, by name (a `vendor/` prefix allowed), most specific first.
 * OpenAI answers 400 "Unsupported value: 'minimal' is not supported with the 'o3' model. Supported values
 * are: 'low', 'medium', and 'high'" (param `reasoning_effort` / `reasoning.effort`) to any other. From the
 * API reference: models before gpt-5.1 take no `none`; gpt-5.1 takes `none`, `low`, `medium`, `high` (no
 * `minimal`); gpt-5-pro only `high`; `xhigh` the models after gpt-5.1-codex-max. From OpenAI's own answers
 * and per-model tables checked against the API (community.openai.com "Compatibility Matrix: Reasoning
 * Effort", 2025-12): the Codex models take `low`, `medium`, `high` (neither `minimal` nor `none`; gpt-5.1-
 * codex-mini too), as gpt-oss does (Harmony), and from gpt-5.1-codex-max on `xhigh` as well; gpt-5.2 and
 * later `none`..`xhigh` without `minimal` ("Supported values are: 'none', 'low', 'medium', 'high', and
 * 'xhigh'"; gpt-5.4 and gpt-5.4-mini alike); their `-pro` models `medium`, `high`, `xhigh`; the
 * `gpt-5.1-chat` / `gpt-5.2-chat` models only `medium`. `codex-mini` (`codex-mini-latest`, fine-tuned from
 * o4-mini) `low`, `medium`, `high`, as o4-mini (OpenAI's model page; Azure's listing of it). The deep-research
 * models (o3-deep-research, o4-mini-deep-research) only `medium`: OpenAI answers "'high' is not supported with
 * the 'o4-mini-deep-research' model. Supported values are: 'medium'." (quoted in a client's code; Cherry
 * Studio's per-model table and its fix CherryHQ/cherry-studio#10676 agree).
 */
const effortsByModel: { pattern: RegExp; efforts: readonly OpenaiEffort[] }[] = [
  { pattern: /(?:^|\/)gpt-5-pro/i, efforts: ['high'] },
  { pattern: /(?:^|\/)gpt-(?:5\.(?:[2-9]|\d{2,})|(?:[6-9]|\d{2,})(?:\.\d+)?)-pro/i, efforts: ['medium', 'high', 'xhigh'] },
  { pattern: /(?:^|\/)gpt-(?:5\.\d+|(?:[6-9]|\d{2,})(?:\.\d+)?)-chat/i, efforts: ['medium'] },
  { pattern: /(?:^|\/)gpt-(?:5\.1-codex-max|5\.(?:[2-9]|\d{2,})[-.\w]*-codex|(?:[6-9]|\d{2,})[-.\w]*-codex)/i, efforts: ['low', 'medium', 'high', 'xhigh'] },
  { pattern: /(?:^|\/)gpt-[\d.]+-codex/i, efforts: ['low', 'medium', 'high'] },
  { pattern: /(?:^|\/)o\d[-\w]*-deep-research/i, efforts: ['medium'] },
  { pattern: /(?:^|\/)(?:o\d|gpt-oss|codex-mini)/i, efforts: ['low', 'medium', 'high'] },
  { pattern: /(?:^|\/)gpt-5(?![.\d])/i, efforts: ['minimal', 'low', 'medium', 'high'] },
  { pattern: /(?:^|\/)gpt-5\.1(?!\d)/i, efforts: ['none', 'low', 'medium', 'high'] },
  { pattern: /(?:^|\/)gpt-(?:5\.(?:[2-9]|\d{2,})|(?:[6-9]|\d{2,})(?![\d]))/i, efforts: ['none', 'low', 'medium', 'high', 'xhigh'] },
];

/**
 * Pure: the effort to send `model` for the one a conversion asks, so that OpenAI does not refuse the request
 * for a value the model does not take: the nearest the model takes (the lesser of two as near, so
 * `minimal` goes to gpt-5.1 as `none`, to o3 as `low`; `none` to gpt-5 as `minimal`; `xhigh` as `high`),
 * with a warning when it moves. A model this table does not know (a compatible server's, a newer family)
 * is sent the effort as asked.
 */
export function openaiEffortForModel(model: string, effort: OpenaiEffort, warnings: string[]): OpenaiEffort {
  const taken = effortsByModel.find((entry) => entry.pattern.test(model))?.efforts;
  if (taken === undefined || taken.includes(effort)) return effort;
  const wanted = openaiEfforts.indexOf(effort);
  const distance = (candidate: OpenaiEffort) => Math.abs(openaiEfforts.indexOf(candidate) - wanted);
  // `taken` runs least to most, so on a tie the lesser wins.
  const nearest = taken.reduce((best, candidate) => (distance(candidate) < distance(best) ? candidate : best));
  warnings.push(`reasoning effort '${effort}' sent as '${nearest}': ${model} takes ${taken.map((value) => `'${value}'`).join(', ')}`);
  return nearest;
}
