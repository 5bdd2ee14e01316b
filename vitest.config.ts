import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Separate processes: native modules (better-sqlite3) and servers on ports stay isolated per file.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    globalSetup: ['test/support/report-skipped-servers.ts'],
  },
});
