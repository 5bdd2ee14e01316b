/** The most of an upstream's answer a task row keeps, in characters (a task's answer is a few KiB). */
export const maxTaskAnswerChars = 256 * 1024;
/** The most of one text in that answer kept (an error quoting a whole log, a prompt echoed back). */
const maxTextChars = 16 * 1024;

/**
 * Pure: an upstream's answer (JSON text) as a task row keeps it. One small enough is kept as it came; a
 * larger one loses its long texts (inline bytes, a log quoted in an error) and, if still too large, is
 * kept as `{}` with a note — a row that big broke its own update on MySQL/MariaDB (max_allowed_packet,
 * mediumtext): the task's final state never committed, so it was neither refunded nor timed out, and
 * elsewhere the megabytes went back to every client that asked for the task. The task's state and its
 * failure reason are read from the whole answer before this; what a client is shown of a finished task
 * (its URLs, buttons, clips) is never that long.
 */
export function boundTaskAnswer(text: string): string {
  if (text.length <= maxTaskAnswerChars) return text;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const shortened = json === undefined ? undefined : JSON.stringify(json, shortenText);
  if (shortened !== undefined && shortened.length <= maxTaskAnswerChars) return shortened;
  return JSON.stringify({ omitted: `the upstream's answer (${text.length} characters) was too large to keep` });
}

function shortenText(key: string, value: unknown): unknown {
  if (typeof value !== 'string' || value.length <= maxTextChars) return value;
  if (key.includes('b64') || value.startsWith('data:')) return '[omitted]';
  return `${value.slice(0, maxTextChars)}… [${value.length - maxTextChars} characters cut]`;
}
