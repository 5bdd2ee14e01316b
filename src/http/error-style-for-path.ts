import type { ErrorStyle } from '../errors/render-error.js';

/** The error envelope a path's clients expect, for requests that matched no route (404s, body errors). */
export function errorStyleForPath(url: string): ErrorStyle {
  const path = url.split('?', 1)[0] ?? url;
  if (path.startsWith('/v1/messages')) return 'anthropic';
  if (path.startsWith('/v1beta/') && !path.startsWith('/v1beta/openai/')) return 'gemini';
  if (path.startsWith('/v1/models/') && path.includes(':')) return 'gemini';
  if (path.startsWith('/api/')) return 'api';
  if (path.startsWith('/suno/') || path.startsWith('/kling/')) return 'task';
  if (/^\/(mj|mj-[a-z]+\/mj)\//.test(path)) return 'mj';
  return 'openai';
}
