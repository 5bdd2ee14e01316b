/**
 * Whether an event (as held: text, or UTF-8 bytes as a one-byte string — the key and its value are ASCII)
 * gives a choice's finish_reason: `"finish_reason"` followed by a non-empty string, not `null` or `""`. A chunk that could
 * only say so inside the model's text escapes its quotes.
 */
export function givesFinishReason(data: string): boolean {
  for (let at = data.indexOf('"finish_reason"'); at !== -1; at = data.indexOf('"finish_reason"', at + 15)) {
    let index = at + 15;
    while (data.charCodeAt(index) === 0x20) index += 1;
    if (data.charCodeAt(index) !== 0x3a) continue;
    index += 1;
    while (data.charCodeAt(index) === 0x20) index += 1;
    // A string, and not the empty one.
    if (data.charCodeAt(index) === 0x22 && data.charCodeAt(index + 1) !== 0x22) return true;
  }
  return false;
}
