#!/usr/bin/env node
import cluster from 'node:cluster';
import { existsSync } from 'node:fs';
import { ConfigFileError, loadConfigFile } from '../config/load-config-file.js';
import { SettingError } from '../config/setting-error.js';
import { readEnvironment, usesInsecureDefaultSecret } from '../config/read-environment.js';
import { startGateway } from '../main.js';
import { createDatabase } from '../storage/create-database.js';
import { runMigrations } from '../storage/run-migrations.js';
import { createTokenCommand } from './create-token-command.js';
import { parseServeArguments } from './parse-serve-arguments.js';
import { serveCluster } from './serve-cluster.js';
import { tuneHeapGrowth } from './tune-heap-growth.js';

const usage = `Usage: relay <command>

Commands:
  serve [--workers N]           start the gateway; N processes (1 to 64, or RELAY_WORKERS) share the port (PORT, DATABASE_URL, RELAY_CONFIG, … from the environment or .env)
  migrate                       create or upgrade the database schema and exit
  config check FILE             validate a config file and exit (non-zero when invalid)
  token create --user NAME --name NAME [--quota N | --unlimited] [--group G] [--models a,b]
                                create an API key and print it once
`;

async function main(argv: string[]): Promise<number> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'migrate': {
      const environment = readEnvironment(process.env);
      const database = await createDatabase(environment.databaseUrl);
      const applied = await runMigrations(database.db, database.dialect);
      process.stdout.write(applied.length === 0 ? 'Schema is up to date.\n' : `Applied: ${applied.join(', ')}\n`);
      await database.close();
      return 0;
    }
    case 'config': {
      const [subcommand, file] = rest;
      if (subcommand !== 'check' || file === undefined) break;
      await loadConfigFile(file);
      process.stdout.write(`${file} is valid.\n`);
      return 0;
    }
    case 'token': {
      if (rest[0] !== 'create') break;
      return createTokenCommand(readEnvironment(process.env), rest.slice(1));
    }
    default:
      break;
  }
  process.stderr.write(usage);
  return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
}

async function serve(args: string[]): Promise<number> {
  const environment = readEnvironment(process.env);
  const { workers } = parseServeArguments(args, process.env);
  if (usesInsecureDefaultSecret(environment) && !cluster.isWorker) {
    process.stderr.write('Warning: CRYPTO_SECRET / SESSION_SECRET are not set; channel keys are encrypted with a built-in default secret.\n');
  }
  if (workers > 1 && cluster.isPrimary) {
    await serveCluster(environment, workers);
    return 0;
  }
  tuneHeapGrowth(environment.heapGrowingPercent);
  const gateway = await startGateway({ environment });
  process.stdout.write(`Unified Relay listening on ${gateway.url} (database: ${gateway.services.database.description})\n`);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    gateway.app.log.info(`${signal} received, draining`);
    void gateway.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  return new Promise<number>(() => undefined);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0 || process.argv[2] !== 'serve') process.exit(code);
  },
  (error: unknown) => {
    // An operator's mistake is said plainly; anything else is a bug, shown with its stack.
    const plain = error instanceof ConfigFileError || error instanceof SettingError;
    process.stderr.write(plain ? `${error.message}\n` : `${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
