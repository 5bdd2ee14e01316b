/**
 * The real gateway (SQLite) in front of scripted upstreams for spec §4.6 / §4.7: `img` behind an OpenAI
 * channel (DALL·E, GPT-image, a mapped alias), `spare` behind a second OpenAI channel for `dall-e-3` only
 * (failover), and an Anthropic channel that lists `claude-only` (images never go there). Expected charges
 * are computed here from docs/behaviour.md "Billing" and "Images", never read from the gateway.
 */
import type { Selectable } from 'kysely';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { LogsTable } from '../../src/storage/database-schema.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

/** Prices in thousandths of the site currency (per image, or per 1M tokens), to keep the arithmetic exact. */
export const priceMilli = {
  'dall-e-2': { perCall: 20 },
  'dall-e-3': { perCall: 40 },
  'img-alias': { perCall: 55 },
  'gpt-image-1': { input: 5000, output: 40000 },
  /** Text and image tokens at their own prices (gpt-image-1.5's list: $5 / $8 in, $10 / $32 out). */
  'gpt-image-1.5': { input: 5000, output: 10000, imageInput: 8000, imageOutput: 32000 },
} as const;

const quotaPerUnit = 500_000n;

/** The config file's price for a model of {@link priceMilli}. */
function configPrice(price: (typeof priceMilli)[keyof typeof priceMilli]): Record<string, number> {
  if ('perCall' in price) return { per_call: price.perCall / 1000 };
  const text = { input: price.input / 1000, output: price.output / 1000 };
  return 'imageInput' in price ? { ...text, image_input: price.imageInput / 1000, image_output: price.imageOutput / 1000 } : text;
}

/**
 * docs/behaviour.md "Billing": exact, rounded half up, a non-zero cost below one unit is 1. `input` and
 * `output` are totals; `imageIn` and `imageOut` the image tokens among them (at the image prices, where the
 * model has them).
 */
export function expectedCharge(model: keyof typeof priceMilli, usage: { images?: number; input?: number; output?: number; imageIn?: number; imageOut?: number }): number {
  const price = priceMilli[model];
  const imageIn = BigInt(usage.imageIn ?? 0);
  const imageOut = BigInt(usage.imageOut ?? 0);
  const imageInput = 'imageInput' in price ? price.imageInput : 'input' in price ? price.input : 0;
  const imageOutput = 'imageOutput' in price ? price.imageOutput : 'output' in price ? price.output : 0;
  const [numerator, denominator] =
    'perCall' in price
      ? [BigInt(price.perCall) * quotaPerUnit * BigInt(usage.images ?? 1), 1000n]
      : [
          ((BigInt(usage.input ?? 0) - imageIn) * BigInt(price.input) + imageIn * BigInt(imageInput) + (BigInt(usage.output ?? 0) - imageOut) * BigInt(price.output) + imageOut * BigInt(imageOutput)) *
            quotaPerUnit,
          1000n * 1_000_000n,
        ];
  if (numerator === 0n) return 0;
  const rounded = (2n * numerator + denominator) / (2n * denominator);
  return Number(rounded === 0n ? 1n : rounded);
}

export const clientKey = `sk-${'i'.repeat(48)}`;
/** A key whose own quota covers two dall-e-3 images and no more. */
export const smallKey = `sk-${'s'.repeat(48)}`;
export const smallKeyQuota = expectedCharge('dall-e-3', { images: 2 });

export type LogEntry = Selectable<LogsTable>;

export interface ImagesFixture {
  gateway: TestGateway;
  img: ScriptedUpstream;
  spare: ScriptedUpstream;
  claude: ScriptedUpstream;
  client: OpenAI;
  clientWith(key: string): OpenAI;
  /** Runs `run` and reads what it charged the key and the log row it left. */
  charged<T>(run: () => Promise<T>): Promise<{ result: T; charge: number; log: LogEntry }>;
  /** Runs `run`, which must fail, and reads what it charged. */
  refused(run: () => Promise<unknown>): Promise<{ error: unknown; charge: number }>;
  tokenUsed(name?: string): Promise<number>;
  post(path: string, body: string | Buffer | FormData, headers?: Record<string, string>): Promise<Response>;
  reset(): void;
  close(): Promise<void>;
}

export async function startImagesFixture(): Promise<ImagesFixture> {
  const [img, spare, claude] = await Promise.all([startScriptedUpstream(), startScriptedUpstream(), startScriptedUpstream()]);
  const channel = { type: 'openai' as const, groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {} };
  const gateway = await startTestGateway({
    dialect: 'sqlite',
    config: {
      retry_times: 1,
      prices: Object.fromEntries(Object.entries(priceMilli).map(([model, price]) => [model, configPrice(price)])),
      channels: [
        { ...channel, name: 'img-up', base_url: img.url, key: 'sk-up-img', models: ['dall-e-2', 'dall-e-3', 'gpt-image-1', 'gpt-image-1.5', 'img-alias'], priority: 10, model_mapping: { 'img-alias': 'gpt-image-upstream' } },
        { ...channel, name: 'spare-up', base_url: spare.url, key: 'sk-up-spare', models: ['dall-e-3'], priority: 0, model_mapping: {} },
        { ...channel, type: 'anthropic' as const, name: 'claude-up', base_url: claude.url, key: 'sk-ant-up', models: ['claude-only'], priority: 0, model_mapping: {} },
      ],
      users: [{ username: 'painter', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [
        { name: 'painter-key', user: 'painter', key: clientKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true },
        { name: 'small-key', user: 'painter', key: smallKey, quota: smallKeyQuota, expires_at: 0, enabled: true },
      ],
    },
  });
  const { db } = gateway.gateway.services.database;
  const clientWith = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const tokenUsed = async (name = 'painter-key') => {
    await gateway.settled();
    const row = await db.selectFrom('tokens').select(['used_quota']).where('name', '=', name).executeTakeFirstOrThrow();
    return Number(row.used_quota);
  };
  const lastLog = async () => {
    await gateway.settled();
    return db.selectFrom('logs').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
  };
  return {
    gateway,
    img,
    spare,
    claude,
    client: clientWith(clientKey),
    clientWith,
    tokenUsed,
    async charged(run) {
      const before = await tokenUsed();
      const result = await run();
      const charge = (await tokenUsed()) - before;
      return { result, charge, log: await lastLog() };
    },
    async refused(run) {
      const before = await tokenUsed();
      const error = await run().then(
        () => {
          throw new Error('expected the request to fail');
        },
        (failure: unknown) => failure,
      );
      return { error, charge: (await tokenUsed()) - before };
    },
    post: (path, body, headers = {}) => fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, ...headers }, body }),
    reset() {
      for (const upstream of [img, spare, claude]) {
        upstream.clearQueue();
        upstream.requests.length = 0;
      }
    },
    async close() {
      await gateway.close();
      await Promise.all([img.close(), spare.close(), claude.close()]);
    },
  };
}

/** An Images API answer as OpenAI writes it: one `data` entry per image (`url` or `b64_json`), `usage` for gpt-image. */
export function imagesAnswer(images: number, options: { b64?: boolean; usage?: unknown; revised?: string } = {}) {
  const data = Array.from({ length: images }, (_, index) =>
    options.b64 === true ? { b64_json: Buffer.from(`png-bytes-${index}`).toString('base64') } : { url: `https://images.example/${index}.png`, ...(options.revised === undefined ? {} : { revised_prompt: options.revised }) },
  );
  return { created: 1_764_200_000, data, ...(options.usage === undefined ? {} : { usage: options.usage }) };
}

/** A small PNG-like binary (bytes that are not valid UTF-8), to prove files travel byte for byte. */
export function binaryImage(seed: number, length = 4096): Buffer {
  const bytes = Buffer.alloc(length);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  for (let index = 8; index < length; index += 1) bytes[index] = (index * 131 + seed * 17) % 256;
  return bytes;
}

/**
 * The fixture for one test file: started before its tests, reset before each, closed after them. The
 * object returned stands for it (its members are read when a test runs).
 */
export function useImagesFixture(): ImagesFixture {
  let fixture: ImagesFixture | undefined;
  beforeAll(async () => {
    fixture = await startImagesFixture();
  });
  afterAll(async () => {
    await fixture?.close();
  });
  beforeEach(() => fixture?.reset());
  return new Proxy({} as ImagesFixture, {
    get(_target, name) {
      if (fixture === undefined) throw new Error('the images fixture is used before it started');
      return fixture[name as keyof ImagesFixture];
    },
  });
}

/**
 * The output tokens one gpt-image-1 image is reserved and (without usage) billed at when the request names
 * no quality or size: the larger of the model's output budget and OpenAI's largest `high` image (6,240).
 */
export function gptImagePerImageBudget(f: ImagesFixture, model = 'gpt-image-1'): number {
  return Math.max(f.gateway.gateway.services.catalog.snapshot.outputBudgetFor(model), 6240);
}
