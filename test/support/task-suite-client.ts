import type { TestGateway } from './start-test-gateway.js';

/** What the task suites (video channels, Suno) do again and again against their gateway. */
export interface TaskSuiteClient {
  /** A token's used quota, once every request in flight is settled and logged. */
  used(tokenName?: string): Promise<number>;
  /** GET `path`, or POST `body` as JSON, with the suite's key (or `key`). */
  call(path: string, body?: unknown, key?: string): Promise<Response>;
  /** One poll-loop pass, after moving the suite's clock on. */
  poll(): Promise<void>;
  /** The upstream id behind a public task id (clients never see it). */
  upstreamIdOf(publicId: string): Promise<string>;
}

/** `gateway` is read on each call: suites start it in `beforeAll`. */
export function taskSuiteClient(options: { gateway: () => TestGateway; key: string; tokenName: string; tick: () => void }): TaskSuiteClient {
  const services = () => options.gateway().gateway.services;
  return {
    async used(tokenName = options.tokenName) {
      await options.gateway().settled();
      const row = await services().database.db.selectFrom('tokens').select('used_quota').where('name', '=', tokenName).executeTakeFirstOrThrow();
      return Number(row.used_quota);
    },
    call(path, body, key = options.key) {
      const url = `${options.gateway().url}${path}`;
      if (body === undefined) return fetch(url, { headers: { authorization: `Bearer ${key}` } });
      return fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    },
    async poll() {
      options.tick();
      await services().taskEngine.pollOnce();
      await options.gateway().settled();
    },
    async upstreamIdOf(publicId) {
      const row = await services().database.db.selectFrom('tasks').select('upstream_id').where('public_id', '=', publicId).executeTakeFirstOrThrow();
      return row.upstream_id as string;
    },
  };
}
