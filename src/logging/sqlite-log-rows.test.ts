import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../storage/create-database.js';
import { LogsRepository, type LogRow } from '../storage/logs-repository.js';
import { runMigrations } from '../storage/run-migrations.js';
import { sqliteLogRowSink } from './sqlite-log-rows.js';

describe('sqliteLogRowSink', () => {
  let directory: string;
  let database: DatabaseHandle;

  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'log-rows-'));
    database = await createDatabase(`sqlite:${join(directory, 'relay.db')}`, { walCheckpoint: false });
    await runMigrations(database.db, database.dialect);
  });
  afterEach(async () => {
    await database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const sink = () => {
    if (database.sqliteConnection === undefined || database.sqliteGroupCommit === undefined) throw new Error('an SQLite handle has its connection and group commit');
    return sqliteLogRowSink(database.sqliteConnection, database.sqliteGroupCommit);
  };

  const full: LogRow = {
    request_id: 'req-full', created_at: 1_700_000_000_123, user_id: 7, token_id: 9, token_name: 'ci', channel_id: 3, model: 'gpt-4o-mini', upstream_model: 'gpt-4o-mini-2024',
    style: 'openai-chat', path: '/v1/chat/completions', is_stream: 1, status: 200, input_tokens: 11, cache_read_tokens: 2, cache_write_tokens: 1, cache_write_1h_tokens: 1, audio_input_tokens: 4, output_tokens: 5,
    reasoning_tokens: 3, audio_output_tokens: 2, image_input_tokens: 3, image_output_tokens: 1, web_search_calls: 1, quota: 1234, latency_ms: 42, first_token_ms: 17, attempts: '[{"channelId":3}]', warnings: '["lossy"]', usage_source: 'upstream', ip: '10.0.0.1', error: null,
  };

  it('writes every column of every row, reading back as the query builder wrote them', async () => {
    const sparse: LogRow = { request_id: 'req-sparse', created_at: 5, style: 'anthropic-messages', path: '/v1/messages', is_stream: 0, status: 402, input_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, audio_input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, audio_output_tokens: 0, image_input_tokens: 0, image_output_tokens: 0, web_search_calls: 0, quota: 0, latency_ms: 1, attempts: '[]', warnings: '[]', usage_source: 'none', error: 'Insufficient quota' };
    await sink().insertMany([full, sparse]);
    const page = await new LogsRepository(database.db).list({}, { page: 1, pageSize: 10 });
    expect(page.total).toBe(2);
    const byId = new Map(page.items.map((item) => [item.request_id, item]));
    const written = byId.get('req-full');
    expect(written).toMatchObject({ ...full, attempts: [{ channelId: 3 }], warnings: ['lossy'] });
    // Columns a row leaves out are NULL, not an error (better-sqlite3 refuses undefined parameters).
    expect(byId.get('req-sparse')).toMatchObject({ user_id: null, token_id: null, token_name: null, channel_id: null, model: null, upstream_model: null, first_token_ms: null, ip: null, error: 'Insufficient quota' });
  });

  it('commits the rows in one operation of the shared group commit, and an empty batch touches nothing', async () => {
    await sink().insertMany([]);
    const inserted = sink().insertMany([full, { ...full, request_id: 'req-2' }]);
    // Queued, not yet committed: the operation runs at the group commit's next flush.
    const before = database.sqliteConnection?.prepare('select count(*) as n from logs').get() as { n: number };
    expect(before.n).toBe(0);
    await inserted;
    const after = database.sqliteConnection?.prepare('select count(*) as n from logs').get() as { n: number };
    expect(after.n).toBe(2);
  });
});
