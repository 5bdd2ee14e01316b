import type { CanonicalTool, CanonicalToolChoice } from '../../canonical/canonical-request.js';

/**
 * Pure: a client's allowed-tools choice (OpenAI `allowed_tools`, Gemini `allowedFunctionNames` with several
 * names) in canonical form. Names of no declared tool are left out (said in `warnings`); a subset that
 * holds every declared tool is just its mode, and one that holds none cannot be carried (its mode, every
 * tool allowed, said).
 */
export function toAllowedToolsChoice(mode: 'auto' | 'required', names: readonly string[], tools: readonly CanonicalTool[], where: string, warnings: string[]): CanonicalToolChoice {
  const declared = new Set(tools.map((tool) => tool.name));
  const allowed = [...new Set(names)].filter((name) => declared.has(name));
  const undeclared = names.filter((name) => !declared.has(name));
  if (undeclared.length > 0) warnings.push(`${where}: ${undeclared.map((name) => JSON.stringify(name)).join(', ')} names no declared function tool; left out of the allowed tools`);
  if (allowed.length === 0) {
    warnings.push(`${where}: no declared function tool is allowed; carried as tool choice '${mode}' with every tool allowed`);
    return { type: mode };
  }
  if (allowed.length === declared.size) return { type: mode };
  return { type: 'allowed-tools', mode, names: allowed };
}
