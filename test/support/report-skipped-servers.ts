/** vitest globalSetup: say plainly which server-backed tests will be skipped on this machine. */
export default function reportSkippedServers(): void {
  const missing = [
    ['RELAY_TEST_POSTGRES_URL', 'PostgreSQL'],
    ['RELAY_TEST_MYSQL_URL', 'MySQL/MariaDB'],
    ['RELAY_TEST_REDIS_URL', 'Redis'],
  ].filter(([variable]) => process.env[variable as string] === undefined);
  for (const [variable, server] of missing) {
    process.stdout.write(`[unified-relay] ${variable} is not set: tests that need ${server} are SKIPPED (bash .ci/run sets it).\n`);
  }
}
