/**
 * Server-Sent Event → text, the inverse of `createSseDecoder`. Data holding line breaks (LF, CRLF
 * or CR) is written as several `data:` lines, which any conforming decoder joins back with "\n".
 */

const lineFeed = '\n';
const carriageReturn = '\r';

export function encodeSseEvent(data: string, event?: string): string {
  const eventLine = event === undefined ? '' : `event: ${requireSingleLine(event)}\n`;
  if (!data.includes(lineFeed) && !data.includes(carriageReturn)) return `${eventLine}data: ${data}\n\n`;
  return `${eventLine}${encodeDataLines(data)}\n`;
}

export function encodeSseDone(): string {
  return 'data: [DONE]\n\n';
}

function encodeDataLines(data: string): string {
  let encoded = '';
  let lineStart = 0;
  for (let index = 0; index < data.length; index++) {
    const character = data[index];
    if (character !== lineFeed && character !== carriageReturn) continue;
    encoded += `data: ${data.slice(lineStart, index)}\n`;
    if (character === carriageReturn && data[index + 1] === lineFeed) index++;
    lineStart = index + 1;
  }
  return `${encoded}data: ${data.slice(lineStart)}\n`;
}

function requireSingleLine(event: string): string {
  if (event.includes(lineFeed) || event.includes(carriageReturn)) throw new TypeError(`SSE event name must be one line: ${JSON.stringify(event)}`);
  return event;
}
