import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChannelRecord, PriceRecord } from '../../catalog/catalog-records.js';
import { resolveModelMapping } from '../../routing/resolve-model-mapping.js';
import type { NewTask, SubmittedTask, TaskRow, TasksRepository } from '../../storage/tasks-repository.js';
import { keyFingerprint } from '../../tasks/key-fingerprint.js';
import { generatePublicTaskId } from '../../tasks/public-task-id.js';
import { submittedTaskRow } from '../../tasks/submitted-task-row.js';
import { estimatePromptTokens } from '../estimate-prompt-tokens.js';
import { mappingLoopFailure } from '../mapping-loop-failure.js';
import { runRelayEnvelope, type AttemptTools, type ErrorPassthrough } from '../relay-envelope.js';
import type { RelayServices } from '../relay-services.js';
import type { AttemptOutcome } from '../run-failover.js';
import { sendWholeAnswer } from '../write-to-client.js';
import { recordSubmitted } from './pending-submits.js';
import type { SubmitCall, TaskSubmitOutcome } from './task-submit-outcome.js';

export interface TaskSubmitServices {
  relay: RelayServices;
  tasks: TasksRepository;
  /** Between two polls of a task (the first comes this long after the submit). */
  pollIntervalMs: number;
}

/** A task about to be created: what it is, how it is priced and logged, and how one channel is asked. */
export interface TaskSubmitPlan {
  /** `video`, `suno`: which routes may read it. */
  kind: string;
  model: string;
  /** The text the task is made from, for the log's prompt estimate. */
  prompt: string;
  /** The route's own price (a video's length and size), with how many calls it is; undefined: the model's. */
  price: { price: PriceRecord; calls: number } | undefined;
  /** Channel types that may serve it. */
  channelTypes: ReadonlySet<string>;
  logStyle: string;
  /** Kept on the row (what the client asked for: length, size, a remix's origin). */
  properties: Record<string, unknown>;
  /** The channel that must serve it (a remix: its video's), when not any. */
  pinnedChannelId?: number;
  /** The key to use on that channel (a remix: the one that made its video), when not the rotation's. */
  keyFor?: (channel: ChannelRecord) => string | undefined;
  send(channel: ChannelRecord, key: string, upstreamModel: string, call: SubmitCall, publicId: string): Promise<TaskSubmitOutcome>;
  /** The client's answer for the task just recorded. */
  answer(task: TaskRow): unknown;
  /** Whether a failed request is answered with the upstream's own error body. */
  errorPassthrough: ErrorPassthrough;
  /**
   * The submit costs nothing even when accepted: a Midjourney Inpaint or CustomZoom button only opens the
   * modal, and the modal that completes it is billed (as new-api bills them).
   */
  free?: boolean;
}

/**
 * Creates one asynchronous task through the relay envelope: price → reserve → a row in `not_start`
 * before the first upstream call → failover over the plan's channels → the accepted task recorded and
 * answered → the charge settled and kept on the row (the poll loop refunds it if the task fails,
 * src/tasks/task-engine.ts). A task no upstream accepted is deleted: nothing was charged. A client that
 * leaves once an upstream's 2xx arrived does not lose the task the upstream took: its answer is read on
 * (within USAGE_WAIT_SECONDS) and the task recorded, charged and polled as if the client had stayed.
 */
export async function runTaskSubmit(services: TaskSubmitServices, request: FastifyRequest, reply: FastifyReply, plan: TaskSubmitPlan): Promise<void> {
  const { relay, tasks } = services;
  const caller = request.caller;
  if (caller === undefined) throw new Error('relay routes run after authentication');

  const publicId = generatePublicTaskId();
  const newTask: NewTask = { publicId, kind: plan.kind, requestId: request.id, userId: caller.user.id, tokenId: caller.token.id, model: plan.model, properties: plan.properties };
  let createdAt = 0;
  let taskId: number | undefined;
  let submitted = false;
  // After the answer: a blip here fails nothing (the client has its task, the settle stands); the charge
  // is kept on the row later, in the background (PendingSubmits.keepCharge).
  const recordCharge = (id: number, quota: number) =>
    tasks.recordCharge(id, quota).catch((error: unknown) => relay.pendingSubmits.keepCharge({ id, publicId, userId: caller.user.id }, quota, error));
  try {
    const charged = await runRelayEnvelope(
      relay,
      request,
      reply,
      {
        model: plan.model,
        stream: false,
        ...estimatePromptTokens({ texts: [plan.prompt], extraTokens: 0 }),
        maxOutputTokens: 0,
        calls: plan.price?.calls ?? 1,
        price: plan.price?.price,
        channelTypes: plan.channelTypes,
        ...(plan.pinnedChannelId === undefined ? {} : { pinnedChannelId: plan.pinnedChannelId }),
        logStyle: plan.logStyle,
        warnings: [],
        // A settle the database could not take at once went through later: its charge is kept then.
        onSettledLate: (late) => {
          if (submitted && taskId !== undefined) void recordCharge(taskId, late);
        },
      },
      async (channel, rotatedKey, tools) => {
        const mapping = resolveModelMapping(channel.modelMapping, plan.model);
        if (!mapping.ok) return mappingLoopFailure(channel.id, mapping.loop);
        const key = plan.keyFor?.(channel) ?? rotatedKey;
        tools.setUpstreamModel(mapping.upstreamModel);
        // Written once, before the first upstream call: from here a crash leaves a row the poll loop refunds.
        if (taskId === undefined) {
          createdAt = relay.now();
          taskId = await tasks.insert(newTask, createdAt);
        }
        const call: SubmitCall = {
          signal: tools.signal,
          // The upstream took the submit (or answers why not in its 2xx): a client that leaves now is
          // waited out for the answer, as a text answer's 2xx is (relay-envelope.ts), not cut off.
          answerArrived: () => {
            tools.meter.wholeAnswerArrived = true;
          },
        };
        const send = () => plan.send(channel, key, mapping.upstreamModel, call, publicId);
        const outcome = await attemptSubmit(services, plan, { channel, key, tools, taskId, newTask, createdAt, upstreamModel: mapping.upstreamModel, reply }, send);
        if (outcome.kind === 'served') submitted = true;
        return outcome;
      },
      plan.errorPassthrough,
    );
    // Undefined: the settle is being retried (onSettledLate records it); until then a failed task's refund
    // waits for the reservation to be settled (TasksRepository.refundFailed).
    if (submitted && taskId !== undefined && charged !== undefined) await recordCharge(taskId, charged);
  } finally {
    if (!submitted && taskId !== undefined) await tasks.discardUnsubmitted(taskId);
  }
}

interface SubmitAttempt {
  channel: ChannelRecord;
  key: string;
  tools: AttemptTools;
  taskId: number;
  /** The row as inserted, at `createdAt`. */
  newTask: NewTask;
  createdAt: number;
  upstreamModel: string;
  reply: FastifyReply;
}

/**
 * One try on one channel, in its protocol. An accepted task is recorded on the row (which leaves
 * `not_start`) and answered; a task the upstream failed at once is answered as such and costs nothing.
 */
async function attemptSubmit(services: TaskSubmitServices, plan: TaskSubmitPlan, attempt: SubmitAttempt, send: () => Promise<TaskSubmitOutcome>): Promise<AttemptOutcome<{ status: number }>> {
  const { relay, tasks } = services;
  const { channel, key, tools } = attempt;
  const accepted = await send();
  if (accepted.kind === 'failed') {
    // A client that left after the 2xx, whose answer then named no task (cut, not read within the wait, or
    // a refusal): no task id is known, so nothing can be polled, shown or refunded — none is charged.
    if (tools.meter.clientAborted && tools.meter.wholeAnswerArrived) tools.meter.interruption = `client disconnected after the upstream's 2xx; its submit answer named no task (${accepted.failure.message}): none recorded, nothing charged`;
    return accepted;
  }
  const now = relay.now();
  const failedAtOnce = accepted.status === 'failure';
  const uncharged = failedAtOnce || plan.free === true;
  const submitted: SubmittedTask = {
    channelId: channel.id,
    keyFingerprint: keyFingerprint(key),
    upstreamModel: attempt.upstreamModel,
    upstreamId: accepted.upstreamId,
    status: accepted.status,
    progress: accepted.progress,
    result: accepted.result,
    nextPollAt: now + services.pollIntervalMs,
    ...(failedAtOnce ? { failReason: accepted.failReason ?? 'The upstream refused the task.' } : {}),
    ...(uncharged ? { nothingCharged: true } : {}),
  };
  // A database blip here must not lose a task the upstream took (and bills): the write is tried again
  // within the request, then handed to a background retry; either way the task is answered and charged.
  const recorded = await recordSubmitted(tasks, attempt.taskId, submitted, now);
  if (recorded === 'gone') return { kind: 'failed', failure: { kind: 'status', status: 502, message: 'The task was given up before its upstream answered.' } };
  const publicId = attempt.newTask.publicId;
  if (recorded === 'unreachable') {
    relay.pendingSubmits.hold({ id: attempt.taskId, publicId, userId: attempt.newTask.userId }, submitted);
    tools.meter.interruption = `the database refused task ${publicId}'s submitted state (upstream id ${accepted.upstreamId}); written in the background`;
  }
  // A task failed at submit produced nothing, and a free one is billed elsewhere: not charged, whatever its
  // price (calls or tokens), and so nothing to refund (the row says so).
  if (uncharged) {
    tools.meter.deliveredCalls = 0;
    tools.meter.upstreamUsage = { input: { total: 0, cacheRead: 0, cacheWrite: 0 }, output: { total: 0, reasoning: 0 } };
  }
  tools.meter.firstTokenAt = now;
  tools.meter.committed = true;
  // The client left while the answer was read: the task stands (the upstream took it and bills it), and
  // the log row names it, the only place the caller's task can be found by.
  if (tools.meter.clientAborted) {
    tools.meter.interruption = `client disconnected before the answer; task ${publicId} recorded (upstream id ${accepted.upstreamId})`;
    return { kind: 'served', value: { status: accepted.httpStatus }, status: accepted.httpStatus };
  }
  // The row as written, or — not written yet, or not readable now — as it will be: the answer is the same.
  const task = (recorded === 'recorded' ? await tasks.findById(attempt.taskId).catch(() => undefined) : undefined) ?? submittedTaskRow(attempt.taskId, attempt.newTask, attempt.createdAt, submitted, now);
  sendWholeAnswer(attempt.reply, accepted.httpStatus, tools.clientHeaders(channel), 'application/json', JSON.stringify(plan.answer(task)));
  return { kind: 'served', value: { status: accepted.httpStatus }, status: accepted.httpStatus };
}
