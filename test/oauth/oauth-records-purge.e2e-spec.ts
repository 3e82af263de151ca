import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OAuthRecordsRepository } from '../../libs/identity/src/oauth-server/oauth-records.repository.js';
import { OAUTH_RECORDS_SWEEP, OAuthRecordsSweeper } from '../../libs/identity/src/oauth-server/oauth-records.sweeper.js';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';

/** Expired authorization-server rows are deleted by every replica's sweep; live ones stay. */
describe('purge of expired oauth_records', () => {
  let replicaA: TestApp;
  let replicaB: TestApp;

  beforeAll(async () => {
    replicaA = await startWithDatabase('todo-api');
    replicaB = await startApp('todo-api', (replicaA as TestApp & { database: { url: string } }).database.url);
  });
  afterAll(async () => {
    await replicaB?.close();
    await replicaA?.close();
  });

  const remaining = async () =>
    (await replicaA.dataSource.query(`SELECT model, id FROM oauth_records WHERE id LIKE 'purge-%' ORDER BY model, id`)) as Array<{ model: string; id: string }>;

  it('two replicas sweeping at once delete every expired row once (more than a batch) and keep live and unexpiring ones', async () => {
    const records = replicaA.app.get(OAuthRecordsRepository);
    const past = new Date(Date.now() - 1000);
    const future = new Date(Date.now() + 3600_000);
    await records.upsert('Session', 'purge-live-session', { kind: 'Session' }, future);
    await records.upsert('Client', 'purge-client', { client_id: 'purge-client' }, null);
    await records.upsert('Grant', 'purge-live-grant', { kind: 'Grant' }, future);
    await records.upsert('Interaction', 'purge-expired-interaction', { kind: 'Interaction' }, past);
    await records.upsert('Grant', 'purge-expired-grant', { kind: 'Grant' }, past);
    // More expired rows than one batch, so the sweep repeats its statement.
    const bulk = OAUTH_RECORDS_SWEEP.batchSize + 500;
    await replicaA.dataSource.query(
      `INSERT INTO oauth_records (model, id, payload, expires_at)
       SELECT 'Session', 'purge-expired-' || n, '{}'::jsonb, now() - interval '1 minute' FROM generate_series(1, $1) AS n`,
      [bulk],
    );

    const [a, b] = await Promise.all([replicaA.app.get(OAuthRecordsSweeper).sweep(), replicaB.app.get(OAuthRecordsSweeper).sweep()]);
    expect(a + b).toBe(bulk + 2);
    expect(await remaining()).toEqual([
      { model: 'Client', id: 'purge-client' },
      { model: 'Grant', id: 'purge-live-grant' },
      { model: 'Session', id: 'purge-live-session' },
    ]);
    // Nothing left to do: a second sweep deletes nothing and the live rows still read.
    expect(await replicaB.app.get(OAuthRecordsSweeper).sweep()).toBe(0);
    expect(await records.find('Session', 'purge-live-session')).toEqual({ kind: 'Session' });
  });
});
