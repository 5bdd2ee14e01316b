import { isRecord } from '../shared/is-record.js';

/** Pure: the non-empty `groundingMetadata.webSearchQueries` of a candidate (the Google searches its answer ran). */
export function groundingQueriesOf(groundingMetadata: unknown): string[] {
  if (!isRecord(groundingMetadata)) return [];
  const metadata = groundingMetadata as Record<string, unknown>;
  const queries = metadata.webSearchQueries ?? metadata.web_search_queries;
  return Array.isArray(queries) ? queries.filter((query): query is string => typeof query === 'string' && query.trim() !== '') : [];
}

/**
 * Pure: the searches Google bills for an answer grounded with Google Search, from the queries it ran and the
 * model that answered (`modelVersion`). Gemini 3 and later bill each unique non-empty query; Gemini 2.x and
 * older bill a grounded prompt once, however many queries it ran. An answer that ran none costs nothing.
 */
export function countGroundingSearches(queries: ReadonlySet<string>, modelVersion: string | undefined): number {
  if (queries.size === 0) return 0;
  return groundingBilledPerPrompt(modelVersion) ? 1 : queries.size;
}

/** Pure: whether Google bills this model's grounding once per prompt (Gemini 2.x and older) rather than per query. */
export function groundingBilledPerPrompt(model: string | undefined): boolean {
  const major = /gemini-(\d+)/i.exec(model ?? '')?.[1];
  return major !== undefined && Number(major) < 3;
}
