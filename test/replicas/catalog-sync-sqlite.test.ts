import { describe } from 'vitest';
import { createTestDatabase } from '../support/test-databases.js';
import { catalogSyncSuite } from './catalog-sync-suite.js';

describe('two processes on one SQLite file without Redis (SYNC_FREQUENCY=1): admin changes reach the other within ~1 s', { timeout: 30_000 }, () => {
  catalogSyncSuite({ freshDatabase: () => createTestDatabase('sqlite'), env: { SYNC_FREQUENCY: '1' }, deadlineMs: 2500 });
});
