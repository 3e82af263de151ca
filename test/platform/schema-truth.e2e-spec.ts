import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SESSION_COLUMNS, USER_COLUMNS } from '#libs/identity';
import { API_KEY_COLUMNS, SUBSCRIPTION_COLUMNS } from '../../apps/todo-api/src/api-access/api-access.rows.js';
import { PASSKEY_COLUMNS } from '../../libs/identity/src/passkeys/passkeys.repository.js';
import { SECURITY_ACTIVITY_COLUMNS } from '../../libs/identity/src/security-activity/security-activity.repository.js';
import { WEBHOOK_DELIVERY_COLUMNS } from '../../libs/webhooks/src/webhook-deliveries.repository.js';
import { WEBHOOK_ENDPOINT_COLUMNS } from '../../libs/webhooks/src/webhook-endpoints.repository.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';

/**
 * The migrations are the one schema; a shared row type's column list must name every column
 * of its table, so a migration that adds a column fails here until the row type has it too.
 */
const rowColumnLists: Record<string, string> = {
  users: USER_COLUMNS,
  sessions: SESSION_COLUMNS,
  api_keys: API_KEY_COLUMNS,
  subscriptions: SUBSCRIPTION_COLUMNS,
  security_activity: SECURITY_ACTIVITY_COLUMNS,
  passkeys: PASSKEY_COLUMNS,
  webhook_endpoints: WEBHOOK_ENDPOINT_COLUMNS,
  webhook_deliveries: WEBHOOK_DELIVERY_COLUMNS,
};

describe('one schema: the migrations', () => {
  const apps: Array<TestApp & { close(): Promise<void> }> = [];

  beforeAll(async () => {
    apps.push(await startWithDatabase('todo-api'), await startWithDatabase('feedback-export'));
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  it('no TypeORM entity describes a table beside them, in either app', () => {
    for (const app of apps) expect(app.dataSource.entityMetadatas.map((metadata) => metadata.tableName)).toEqual([]);
  });

  it.each(Object.keys(rowColumnLists))('the row type of %s selects every column of the migrated table', async (table) => {
    const dataSource = apps[0].dataSource;
    const columns: Array<{ column_name: string }> = await dataSource.query(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1`,
      [table],
    );
    const selected = rowColumnLists[table].split(',').map((item) => item.trim().split(/\s+/)[0]);
    expect(selected.sort()).toEqual(columns.map((column) => column.column_name).sort());
    await dataSource.query(`SELECT ${rowColumnLists[table]} FROM ${table} LIMIT 0`);
  });
});
