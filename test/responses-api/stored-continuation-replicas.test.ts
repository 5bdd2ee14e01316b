import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReply, ScriptedRequest } from '../fakes/scripted-upstream.js';
import { responsesStream, responsesWhole, type WireUsage } from '../fakes/scripted-vendor-wire.js';
import { expectedCharge, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { serverUrls } from '../support/test-databases.js';

/**
 * Two replicas sharing Redis (docs/behaviour.md "Stored responses"). A conversation's entry is rewritten
 * each turn, by whichever replica served it: a replica that saw an earlier turn must read Redis first, not
 * its own copy of that turn (it reserved the history as it was then: found by the continuation audit).
 */
const model = modelOf['openai-responses'];
const run = randomUUID().slice(0, 8);

describe.skipIf(serverUrls.redis === undefined)('a conversation continued across replicas (REDIS_URL)', () => {
  let fixture: BillingFixture;
  let replicaB: TestGateway;
  let usage: WireUsage = { input: 10, output: 2 };
  beforeAll(async () => {
    const redisUrl = serverUrls.redis!;
    // The conversation is made outside the gateway (the scripted upstream has no Conversations API): claimed by its first turn.
    fixture = await startBillingFixture({ tokenQuota: 1_000_000_000, env: { REDIS_URL: redisUrl }, allowUnknownConversations: true });
    let made = 0;
    fixture.primary['openai-responses'].setFallback((request: ScriptedRequest): ScriptedReply => {
      made += 1;
      const body = request.body as Record<string, unknown>;
      const answer = { id: `resp_${run}_${made}`, text: 'ok', usage };
      return body.stream === true ? responsesStream(answer) : responsesWhole(answer);
    });
    replicaB = await startTestGateway({ databaseUrl: fixture.gateway.databaseUrl, env: { REDIS_URL: redisUrl }, config: { channels: [] } as never });
  }, 30_000);
  afterAll(async () => {
    await replicaB?.close();
    await fixture?.close();
  });

  it('turn 1 on A, turn 2 (200k history) on B, turn 3 on A: A reserves the 200k history', async () => {
    const conversation = `conv_${run}`;
    const onA = fixture.sdk.openai;
    const onB = new OpenAI({ apiKey: onA.apiKey, baseURL: `${replicaB.url}/v1`, maxRetries: 0 });
    usage = { input: 10, output: 2 };
    await onA.responses.create({ model, input: 'turn one', conversation });
    usage = { input: 200_000, output: 1_000 };
    await onB.responses.create({ model, input: 'turn two', conversation });
    await new Promise((resolve) => setTimeout(resolve, 200));
    // What B wrote to Redis is the conversation's history now.
    expect(await replicaB.gateway.services.relay.responses.recall(conversation)).toMatchObject({ contextTokens: 201_000 });
    expect(await fixture.gateway.gateway.services.relay.responses.recall(conversation), 'replica A sees the latest turn').toMatchObject({ contextTokens: 201_000 });

    usage = { input: 201_010, output: 2 };
    await onA.responses.create({ model, input: 'turn three', conversation, max_output_tokens: 16 });
    await fixture.settled();
    const reservations = await fixture.reservations();
    expect(reservations.at(-1)!.amount, 'turn three reserves the 201k history').toBeGreaterThanOrEqual(expectedCharge({ input: 201_000, output: 16 }));
  });
});
