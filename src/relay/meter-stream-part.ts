import type { CanonicalStreamPart } from '../canonical/canonical-stream-part.js';
import type { UsageMeter } from './usage-meter.js';

/** Reads what billing needs from a canonical part: reported usage, produced text, the first token. */
export function meterStreamPart(meter: UsageMeter, part: CanonicalStreamPart, now: () => number): void {
  switch (part.type) {
    case 'usage':
      meter.upstreamUsage = part.usage;
      return;
    case 'finish':
      if (part.usage !== undefined) meter.upstreamUsage = part.usage;
      return;
    case 'text-delta':
    case 'reasoning-delta':
      noteText(meter, part.text, now);
      return;
    case 'tool-call-start':
      noteText(meter, part.name, now);
      return;
    case 'tool-call-delta':
      noteText(meter, part.argumentsDelta, now);
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
