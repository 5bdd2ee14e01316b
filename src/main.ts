import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { applyConfigFile } from './bootstrap/apply-config-file.js';
import { ensureRootAndAdminKey } from './bootstrap/ensure-root-and-admin-key.js';
import { ensureSessionSecret } from './bootstrap/ensure-session-secret.js';
import { Catalog } from './catalog/catalog.js';
import type { ConfigFile } from './config/config-file-schema.js';
import { loadConfigFile } from './config/load-config-file.js';
import type { Environment } from './config/read-environment.js';
import { SettingError } from './config/setting-error.js';
import type { AppServices } from './http/app-services.js';
import { buildApp } from './http/build-app.js';
import { createLogRowSink } from './logging/create-log-row-sink.js';
import { createLogWriter, type LogWriter } from './logging/log-writer.js';
import { createSecretBox } from './security/secret-box.js';
import type { RecoveredReservation } from './billing/quota-ledger.js';
import { createQuotaLedger } from './billing/create-quota-ledger.js';
import { SettleRetryQueue } from './billing/settle-retry-queue.js';
import { PendingSubmits } from './relay/task-submit/pending-submits.js';
import { readSettlement } from './billing/read-settlement.js';
import { MemoryRateLimiter } from './limits/memory-rate-limiter.js';
import type { RateLimiter } from './limits/rate-limiter.js';
import { UpstreamClient } from './providers/upstream-client.js';
import { buildLostLogRow, buildRecoveryLogRow } from './relay/build-recovery-log-row.js';
import { beatLogRun, markLogRunClean, recoverDeadRunsLogRows, recoverLostLogRows, runMarkNode, type LostLogRowsStore } from './logging/recover-lost-log-rows.js';
import { findUnloggedSettlements } from './storage/find-unlogged-settlements.js';
import { insertRecoveredLogRow } from './storage/insert-recovered-log-row.js';
import { InFlightRequests } from './relay/in-flight-requests.js';
import type { RelayServices } from './relay/relay-services.js';
import { ChannelHealth } from './routing/channel-health.js';
import { ChannelsRepository } from './storage/channels-repository.js';
import { createDatabase } from './storage/create-database.js';
import { LogsRepository } from './storage/logs-repository.js';
import { OptionsRepository } from './storage/options-repository.js';
import { PricingRepository } from './storage/pricing-repository.js';
import { runMigrations } from './storage/run-migrations.js';
import { startRetention } from './storage/start-retention.js';
import { TasksRepository } from './storage/tasks-repository.js';
import { AssetOwnersRepository } from './storage/asset-owners-repository.js';
import { ConversationOwnersRepository } from './storage/conversation-owners-repository.js';
import { TokensRepository } from './storage/tokens-repository.js';
import { TaskEngine } from './tasks/task-engine.js';
import { UsersRepository } from './storage/users-repository.js';
import { ConversationOwners } from './relay/conversations/conversation-owners.js';
import { LocalResponseMemory, type ResponseMemory } from './relay/responses/response-memory.js';
import { StreamKeepAlive } from './relay/stream-keepalive.js';

export interface StartOptions {
  environment: Environment;
  /** An already-parsed config (tests); otherwise RELAY_CONFIG is read. */
  config?: ConfigFile;
  /** Where first-start secrets are shown; stdout by default. */
  announce?: (line: string) => void;
  now?: () => number;
  listen?: boolean;
}

export interface Gateway {
  app: FastifyInstance;
  services: AppServices;
  logWriter: LogWriter;
  /** http://host:port once listening. */
  url: string;
  close(): Promise<void>;
}

/** The composition root: config → storage → services → HTTP server. */
export async function startGateway(options: StartOptions): Promise<Gateway> {
  const { environment } = options;
  const announce = options.announce ?? ((line: string) => process.stdout.write(`${line}\n`));
  const now = options.now ?? Date.now;
  const config = options.config ?? (environment.configPath === undefined ? undefined : await loadConfigFile(environment.configPath));

  const database = await createDatabase(environment.databaseUrl, { cacheMb: environment.sqliteCacheMb });
  await runMigrations(database.db, database.dialect);
  const secrets = createSecretBox(environment.cryptoSecret);
  const repositories = {
    users: new UsersRepository(database.db, database.dialect),
    tokens: new TokensRepository(database.db, database.dialect),
    channels: new ChannelsRepository(database.db, database.dialect, secrets),
    pricing: new PricingRepository(database.db),
    options: new OptionsRepository(database.db),
    logs: new LogsRepository(database.db, database.reader),
    tasks: new TasksRepository(database.db, database.dialect),
    assetOwners: new AssetOwnersRepository(database.db, database.dialect),
    conversationOwners: new ConversationOwnersRepository(database.db, database.dialect),
  };

  const bootstrap = await ensureRootAndAdminKey(repositories.users, repositories.options, config?.admin_key ?? environment.adminKey, now());
  const sessionSecret = await ensureSessionSecret(repositories.options, environment.sessionSecret);
  const generatedTokens = config === undefined ? [] : await applyConfigWithRetry(config, repositories, now);

  // ioredis is loaded only when Redis is configured (its code is ~1 MB of heap a SQLite-only gateway never uses).
  const notifier = environment.redisUrl === undefined ? undefined : (await import('./catalog/redis-change-notifier.js')).createRedisChangeNotifier(environment.redisUrl);
  const catalog = new Catalog(repositories, notifier, () => randomUUID());
  // A config file's entries are changes too: the replicas already running reload them (a new version,
  // published), as they would an admin API change, instead of charging yesterday's prices until the next one.
  if (config === undefined) await catalog.load();
  else await catalog.changed();
  await catalog.startSync(environment.syncFrequencySeconds * 1000);

  const nodeName = environment.nodeName ?? `${hostname()}:${environment.port}`;
  const ledger = createQuotaLedger(database, nodeName, (error) =>
    process.stderr.write(`a quota ledger batch failed and its calls were run one by one: ${String(error)}\n`),
  );
  const logRecovered = async (reservation: RecoveredReservation) => {
    const row = buildRecoveryLogRow(reservation, catalog.snapshot.tokensById.get(reservation.tokenId)?.name);
    // The charge itself is settled already; a row that cannot be written must not stop the start. Through
    // the reservation's claim, as a lost row is: a node writing lost rows back meanwhile writes no second.
    await insertRecoveredLogRow(database.db, reservation.id, row, now()).catch((error: unknown) => process.stderr.write(`logging recovered reservation ${reservation.id} failed: ${String(error)}\n`));
  };
  const recovered = await ledger.recoverOpenReservations(now(), logRecovered);
  // Charges settled by a run that died before writing their log rows get rows from their settlements.
  const lostLogRows: LostLogRowsStore = {
    readOption: (key) => repositories.options.get(key),
    writeOption: (key, value) => repositories.options.set(key, value),
    replaceOption: (key, expected, value) => repositories.options.replace(key, expected, value),
    readRunMarks: async () => {
      const marks = new Map<string, string>();
      for (const [key, value] of Object.entries(await repositories.options.withPrefix('log_run:'))) {
        const node = runMarkNode(key);
        if (node !== undefined) marks.set(node, value);
      }
      return marks;
    },
    findUnlogged: (owner, since, settledBefore) => findUnloggedSettlements(database.db, owner, since, settledBefore),
    insertRecovered: (reservation, row) => insertRecoveredLogRow(database.db, reservation.id, row, now()),
  };
  const buildLostRow = (reservation: RecoveredReservation) => buildLostLogRow(reservation, catalog.snapshot.tokensById.get(reservation.tokenId)?.name);
  const runStartedAt = now();
  const relogged = await recoverLostLogRows(lostLogRows, nodeName, runStartedAt, buildLostRow).catch((error: unknown) => {
    process.stderr.write(`recording the log rows a crash lost failed: ${String(error)}\n`);
    return { rows: 0, quota: 0 };
  });
  // A settle the database could not take (down, or its answer lost) is made again in the background; a
  // line at its 1st, 2nd, 4th, 8th… failed try, so that a long outage does not flood the log.
  const settleRetries = new SettleRetryQueue(ledger, {
    firstDelayMs: 500,
    maxDelayMs: 30_000,
    now,
    settlementOf: (reservationId) => readSettlement(database.db, reservationId),
    onFailure: (error, reservationId, tries) => {
      if ((tries & (tries - 1)) === 0) process.stderr.write(`reservation ${reservationId}: ${String(error)} (${tries} failed ${tries === 1 ? 'try' : 'tries'}); settling it again in the background\n`);
    },
  });
  if (recovered.settled > 0) announce(`Settled ${recovered.settled} reservation(s) left open by a crash (${recovered.quota} quota units charged as reserved).`);
  if (relogged.rows > 0) announce(`Wrote ${relogged.rows} log row(s) a crash lost, from their settlements (${relogged.quota} quota units).`);

  const rateLimiter: RateLimiter = environment.redisUrl === undefined ? new MemoryRateLimiter() : (await import('./limits/redis-rate-limiter.js')).createRedisRateLimiter(environment.redisUrl);
  const upstream = new UpstreamClient({
    connectMs: environment.connectTimeoutSeconds * 1000,
    firstByteMs: environment.firstByteTimeoutSeconds * 1000,
    idleMs: environment.streamingTimeoutSeconds * 1000,
    maxWholeBodyBytes: environment.maxUpstreamResponseMb * 1024 * 1024,
  });
  // Rows held past half an hour (a node cut off from the database) are written through their reservations'
  // claims, so that rows another node wrote back meanwhile are not written twice.
  const logRows = createLogRowSink(database);
  const logWriter = createLogWriter(logRows.sink, {
    flushIntervalMs: 500,
    // Small batches: on SQLite an insert runs synchronously on the connection every request shares.
    maxBatch: 100,
    // On SQLite the rows join the group commit of the next turn; elsewhere each batch is a round trip.
    ...(logRows.groupCommitted ? { turnFlushRows: 16 } : {}),
    now,
    // While writes fail, rows wait (up to 100 000, the default) and are tried again at intervals doubling
    // from 0.5 s to 30 s: one failed try, one line.
    onError: (error) => process.stderr.write(`writing log rows failed: ${String(error)}\n`),
    onDropped: (rows, reason) => process.stderr.write(`${rows} log row(s) dropped: ${reason}\n`),
  });
  const retention = startRetention(database, {
    logRetentionDays: () => catalog.snapshot.settings.logRetentionDays,
    // A reservation whose owner never came back (a replica removed, a cluster shrunk) is not left to the
    // next start somewhere: every sweep settles those older than 24 hours.
    // The same for the log rows of a node killed and never started again: the sweep beats this run's mark
    // (alive), then writes back the lost rows of runs whose marks stopped beating (recover-lost-log-rows.ts).
    // Its own failure says so (the sweep's onError speaks of deleting old rows, which runs after it anyway).
    recoverStale: async () => {
      try {
        await beatLogRun(lostLogRows, nodeName, runStartedAt, now());
        await ledger.recoverOpenReservations(now(), logRecovered, 'stale');
        const relogged = await recoverDeadRunsLogRows(lostLogRows, nodeName, now(), buildLostRow);
        if (relogged.rows > 0) announce(`Wrote ${relogged.rows} log row(s) of dead runs of other nodes, from their settlements (${relogged.quota} quota units).`);
      } catch (error) {
        process.stderr.write(`the hourly recovery (run mark, stale reservations, dead runs' log rows) failed: ${String(error)}\n`);
      }
    },
    now,
    onError: (error) => process.stderr.write(`deleting old rows failed: ${String(error)}\n`),
  });
  const responseMemoryOptions = { maxEntries: 50_000, ttlMs: 72 * 3600_000, now, onError: (error: unknown) => process.stderr.write(`response memory (Redis): ${String(error)}\n`) };
  const responses: ResponseMemory =
    environment.redisUrl === undefined
      ? new LocalResponseMemory(responseMemoryOptions)
      : (await import('./relay/responses/redis-response-memory.js')).createRedisResponseMemory(environment.redisUrl, responseMemoryOptions);
  const health = new ChannelHealth({ failureThreshold: 3, cooldownMs: 30_000 });
  const inFlight = new InFlightRequests();
  const report = (line: string) => void process.stderr.write(`${line}\n`);
  const pendingSubmits = new PendingSubmits(repositories.tasks, { report, now });
  const relay: RelayServices = {
    catalog,
    upstream,
    health,
    ledger,
    settleRetries,
    rateLimiter,
    logWriter,
    inFlight,
    responses,
    conversations: new ConversationOwners(responses, repositories.conversationOwners, {
      now,
      onError: (error, conversationId) => process.stderr.write(`writing the owner row of conversation ${conversationId} failed: ${String(error)}\n`),
    }),
    pendingSubmits,
    keepAlive: new StreamKeepAlive(environment.streamKeepAliveSeconds * 1000),
    settings: { maxStreamEventBytes: 8 * 1024 * 1024, usageWaitMs: environment.usageWaitSeconds * 1000 },
    report,
    disableChannel: (channelId, reason) => {
      void repositories.channels
        .update(channelId, { status: 'auto_disabled', statusReason: reason.slice(0, 500) }, now())
        .then(() => catalog.changed())
        .catch((error: unknown) => process.stderr.write(`disabling channel ${channelId} failed: ${String(error)}\n`));
    },
    now,
    random: Math.random,
  };

  const taskEngine = new TaskEngine({
    repository: repositories.tasks,
    catalog,
    upstream,
    now,
    intervalMs: environment.taskPollIntervalSeconds * 1000,
    timeoutMs: environment.taskTimeoutMinutes * 60_000,
    onError: (error) => process.stderr.write(`polling tasks failed: ${String(error)}\n`),
    heldSubmit: (taskId) => pendingSubmits.isHeld(taskId),
  });
  const services: AppServices = { environment, sessionSecret, database, catalog, secrets, relay, repositories, taskEngine, now };
  const app = await buildApp(services, {
    bodyLimitBytes: Math.floor(catalog.snapshot.settings.maxBodyMb * 1024 * 1024),
    logLevel: environment.logLevel,
    trustProxy: environment.trustProxy,
  });

  let url = '';
  if (options.listen !== false) {
    url = await app.listen({ port: environment.port, host: environment.host });
  }
  if (bootstrap.generatedAdminKey !== undefined) {
    announce(`Generated admin key (shown once, store it now): ${bootstrap.generatedAdminKey}`);
    announce(`  Use it as: curl -H "Authorization: Bearer ${bootstrap.generatedAdminKey}" ${url === '' ? 'http://localhost:3000' : url}/api/admin/channels`);
    // The admin key opens /api/admin only: a newcomer's next step is an API key for /v1 (README "First request").
    announce('  API keys for /v1/* (after adding a channel and a price): npx relay token create --name my-key, or POST /api/admin/tokens {"name":"my-key"} (README "First request").');
  }
  for (const token of generatedTokens) announce(`Generated key for token "${token.name}" of user "${token.user}" (shown once): ${token.key}`);
  taskEngine.start();

  return {
    app,
    services,
    logWriter,
    url,
    async close() {
      const deadline = Date.now() + environment.shutdownTimeoutSeconds * 1000;
      // Stops accepting; waits for the requests it is serving.
      const serverClosed = app.close();
      // A response can be out before its settlement and log row are written: wait for those first, but
      // not past SHUTDOWN_TIMEOUT (a stalled stream would hold the process until STREAMING_TIMEOUT, and an
      // orchestrator kills it sooner, leaving its reservation to crash recovery). Past it, every upstream
      // call and client connection still open is cut: those requests settle as interrupted ones do.
      if (!(await settlesWithin(inFlight.drained(), environment.shutdownTimeoutSeconds * 1000))) {
        app.log.warn(`${inFlight.size} request(s) still running after SHUTDOWN_TIMEOUT; cutting them`);
        await upstream.destroy();
        app.server.closeAllConnections();
      }
      await inFlight.drained();
      // Settles still failing get one more try, within what is left of SHUTDOWN_TIMEOUT; the rest are
      // left to the next start's recovery (charged as reserved), as a crash would leave them.
      const unsettled = await settleRetries.close(Math.max(0, deadline - Date.now()));
      if (unsettled > 0) app.log.warn(`${unsettled} settlement(s) could not be made before shutdown; the next start settles them at their reserved amounts`);
      // A claimed conversation's channel whose write is waiting for its next try: tried once more.
      await relay.conversations.close();
      // An accepted task's submitted state still waiting for its next try: tried once more.
      await pendingSubmits.close();
      await serverClosed;
      await taskEngine.stop();
      // No sweep beats the run's mark after it is marked clean.
      await retention.stop();
      // Every row written: the next start has no lost row to look for.
      if ((await logWriter.close()) === 0) await markLogRunClean(lostLogRows, nodeName).catch((error: unknown) => process.stderr.write(`marking the log complete failed: ${String(error)}\n`));
      await upstream.close();
      await rateLimiter.close();
      await responses.close();
      relay.keepAlive.close();
      await catalog.stop();
      await database.close();
    },
  };
}

/** Whether `promise` settles within `ms` milliseconds. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true as const), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Several replicas may start at once with the same file; a lost insert race is retried as an update. */
async function applyConfigWithRetry(config: ConfigFile, repositories: Parameters<typeof applyConfigFile>[1], now: () => number) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await applyConfigFile(config, repositories, now());
    } catch (error) {
      // A lost insert race is worth another try; a config naming what does not exist is not.
      if (attempt >= 4 || error instanceof SettingError) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 200));
    }
  }
}
