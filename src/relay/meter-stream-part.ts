import type { CanonicalResponse } from '../canonical/canonical-response.js';
import type { CanonicalStreamPart } from '../canonical/canonical-stream-part.js';
import { maxRememberedItemsPerAnswer } from './responses/continued-response.js';
import type { UsageMeter } from './usage-meter.js';

/**
 * Reads what billing needs from a whole (non-streamed) answer: its reported usage, or, when the upstream
 * reported none, the text it produced, counted locally at settlement as a stream's would be — with the
 * input (and reasoning) of a report that left the output out (`inputUsage`), as an `input-usage` part.
 */
export function meterWholeResponse(meter: UsageMeter, response: CanonicalResponse, now: () => number): void {
  meter.firstTokenAt = now();
  meter.responseId = response.id;
  if (response.outputItemIds !== undefined) meter.outputItemIds = response.outputItemIds.slice(0, maxRememberedItemsPerAnswer);
  if (response.usage !== undefined) {
    meter.upstreamUsage = response.usage;
  } else {
    for (const part of response.content) {
      if (part.type === 'tool-call') {
        meter.outputTally.add(part.name);
        meter.outputTally.add(part.arguments);
      } else {
        meter.outputTally.add(part.text);
        // Apart too: a report that counted the reasoning but not the visible output bills the rest.
        if (part.type === 'reasoning') meter.reasoningTally.add(part.text);
      }
    }
    if (response.uncarriedOutput !== undefined) meter.outputTally.add(response.uncarriedOutput);
    const reported = response.inputUsage;
    if (reported !== undefined) {
      // A report of 0 input (a relay that counts only the total) leaves the prompt to the local count.
      meter.reportedInput = reported.input.total > 0 ? reported.input : undefined;
      meter.reportedWebSearches = reported.webSearches;
      meter.reportedReasoning = reported.reasoning;
    }
  }
  meter.onAnswerNoted?.();
}

/** Reads what billing needs from a canonical part: reported usage, produced text, the first token. */
export function meterStreamPart(meter: UsageMeter, part: CanonicalStreamPart, now: () => number): void {
  switch (part.type) {
    case 'start':
      meter.responseId = part.id;
      meter.onAnswerNoted?.();
      if (part.inputUsage !== undefined) meter.reportedInput = part.inputUsage;
      // The earliest tier named: a stream cut before its final usage is billed at it (settle-request.ts).
      if (part.serviceTier !== undefined) meter.servedTier ??= part.serviceTier;
      return;
    case 'usage':
      meter.upstreamUsage = part.usage;
      return;
    case 'input-usage':
      // A later report than any usage before it (canonical-stream-part.ts): the output is counted locally.
      meter.upstreamUsage = undefined;
      // A report of 0 input (a relay that counts only the total) leaves the prompt to the local count.
      meter.reportedInput = part.input.total > 0 ? part.input : undefined;
      meter.reportedWebSearches = part.webSearches;
      meter.reportedReasoning = part.reasoning;
      return;
    case 'web-searches':
      meter.reportedWebSearches = part.count;
      return;
    case 'uncarried-output':
      meter.outputTally.add(part.text);
      return;
    case 'output-item':
      if (meter.outputItemIds.length >= maxRememberedItemsPerAnswer) return;
      meter.outputItemIds.push(part.id);
      meter.onAnswerNoted?.();
      return;
    case 'finish':
      if (part.usage !== undefined) meter.upstreamUsage = part.usage;
      meter.onAnswerNoted?.();
      return;
    case 'text-delta':
      noteText(meter, part.text, now);
      return;
    case 'reasoning-delta':
      noteText(meter, part.text, now);
      // Apart too: a report that counts the reasoning but not the visible output (input-usage) bills the rest.
      meter.reasoningTally.add(part.text);
      return;
    case 'tool-call-start':
      noteText(meter, part.name, now);
      return;
    case 'tool-call-delta':
      noteText(meter, part.argumentsDelta, now);
      return;
    case 'error':
      // An upstream that failed in-band mid-stream: the log row says so (the client got the error event).
      meter.interruption ??= `upstream error mid-stream: ${part.message}`;
      return;
    default:
      return;
  }
}

function noteText(meter: UsageMeter, text: string, now: () => number): void {
  if (text === '') return;
  if (meter.firstTokenAt === undefined) meter.firstTokenAt = now();
  meter.outputTally.add(text);
}
