/**
 * Helpers of the Gemini-native tests: raw Gemini calls and SSE payloads. The books each request must
 * leave are checked by `booked` (test/support/booked-request.ts).
 */
import { callerKey, modelOf, styles } from '../billing-edges/billing-fixture.js';
import type { WireStyle } from '../fakes/scripted-vendor-wire.js';
import { readAnswer } from '../support/read-answer.js';

export { callerKey, modelOf, styles };
export { booked } from '../support/booked-request.js';

/** The upstream style a model of the fixture is served by. */
export const styleOf = (model: string): WireStyle => styles.find((style) => modelOf[style] === model)!;

/** A raw Gemini REST call (x-goog-api-key unless `auth` says otherwise); returns status, headers and text. */
export async function geminiRaw(
  gatewayUrl: string,
  path: string,
  body: unknown,
  options: { auth?: Record<string, string>; method?: string } = {},
): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(options.auth ?? { 'x-goog-api-key': callerKey }) };
  const response = await fetch(`${gatewayUrl}${path}`, { method: options.method ?? 'POST', headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return readAnswer(response);
}

/** The data payloads of an SSE body, JSON-parsed. */
export function sseData(text: string): any[] {
  return text
    .replaceAll('\r\n', '\n')
    .split('\n\n')
    .map((block) => block.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart()).join('\n'))
    .filter((data) => data !== '')
    .map((data) => {
      try {
        return JSON.parse(data);
      } catch {
        return data;
      }
    });
}
