import { isRecord } from '../convert/shared/is-record.js';

/** Pure: a task row's JSON column as an object; undefined when empty, malformed or not an object. */
export function readJsonObject(text: string | null): Record<string, unknown> | undefined {
  if (text === null) return undefined;
  try {
    const json: unknown = JSON.parse(text);
    return isRecord(json) ? json : undefined;
  } catch {
    return undefined;
  }
}
