import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { insertApiCaller } from '../support/api-keys.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';

/** The JSON inside an opaque cursor, as a client could find it (some base64url part of the string). */
function editPayload(cursor: string, edit: (payload: any) => void): string {
  const parts = cursor.split('.');
  for (let i = 0; i < parts.length; i++) {
    try {
      const payload = JSON.parse(Buffer.from(parts[i], 'base64url').toString('utf8'));
      if (typeof payload !== 'object' || payload === null) continue;
      edit(payload);
      parts[i] = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return parts.join('.');
    } catch {
      // not this part
    }
  }
  throw new Error('no JSON payload found in the cursor');
}

describe('todo list cursors are signed', () => {
  let t: TestApp & { close(): Promise<void> };
  let key: string;

  beforeAll(async () => {
    t = await startWithDatabase('todo-api');
    key = (await insertApiCaller(t.dataSource)).key;
    for (const text of ['first', 'second', 'third']) {
      await t.http.post('/api/v1/todos').set('X-API-Key', key).send({ text, priority: 3, category: 'work' }).expect(201);
    }
  });

  afterAll(async () => {
    await t.close();
  });

  it('follows its own nextCursor, and refuses one whose position a client altered', async () => {
    const first = await t.http.get('/api/v1/todos?limit=1').set('X-API-Key', key).expect(200);
    const cursor: string = first.body.data.nextCursor;
    const second = await t.http.get(`/api/v1/todos?limit=1&cursor=${encodeURIComponent(cursor)}`).set('X-API-Key', key).expect(200);
    expect(second.body.data.todos[0].text).toBe('second');

    // Moved back before the first row: without a signature the first page would be served again.
    const altered = editPayload(cursor, (payload) => {
      payload.k.createdAtKey = '2000-01-01 00:00:00+00';
      payload.k.id = 0;
    });
    const refused = await t.http.get(`/api/v1/todos?limit=1&cursor=${encodeURIComponent(altered)}`).set('X-API-Key', key).expect(400);
    expect(refused.body.error.code).toBe('VALIDATION_ERROR');
  });
});
