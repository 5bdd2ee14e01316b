import { request as httpRequest } from 'node:http';

export interface SlowPostAnswer {
  status: number;
  json: any;
}

/**
 * POSTs `body` as JSON to `url` in two halves, running `between` once the gateway has the first half (its
 * headers checked in `onRequest`, its body still arriving): the slow upload an SDK cannot pause.
 */
export function slowPost(url: string, headers: Record<string, string>, body: Record<string, unknown>, between: () => Promise<void>): Promise<SlowPostAnswer> {
  const bytes = Buffer.from(JSON.stringify(body));
  const half = Math.floor(bytes.length / 2);
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(bytes.length), ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) });
        });
      },
    );
    sent.on('error', reject);
    sent.write(bytes.subarray(0, half));
    setTimeout(() => between().then(() => sent.end(bytes.subarray(half)), reject), 300);
  });
}
