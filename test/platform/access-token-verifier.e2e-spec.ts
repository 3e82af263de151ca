import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { insertUser } from '#libs/testing';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { sourceFiles } from '../support/source-files.js';

describe('one access-token verifier', () => {
  it('verifies first-party access tokens only in the passport-jwt strategy: JwtService and jsonwebtoken only sign', () => {
    const root = process.cwd();
    const files = [...sourceFiles(join(root, 'apps')), ...sourceFiles(join(root, 'libs'))].map((path) => ({ path: relative(root, path), text: readFileSync(path, 'utf8') }));
    expect(files.filter((file) => /from 'passport-jwt'/.test(file.text)).map((file) => file.path)).toEqual(['libs/identity/src/access-tokens/jwt.strategy.ts']);
    const verifiesElsewhere = files.filter((file) => /from '(@nestjs\/jwt|jsonwebtoken)'/.test(file.text) && /\.(verify|verifyAsync|decode)\(/.test(file.text));
    expect(verifiesElsewhere.map((file) => file.path)).toEqual([]);
  });
});

describe('JWT routes of several apps in one process, one of them closed', () => {
  let todo: Awaited<ReturnType<typeof startWithDatabase>>;
  let feedback: TestApp;
  let userId: string;

  const sessionsOf = (app: TestApp, token: string) => app.http.get('/api/v1/auth/sessions').set('Authorization', `Bearer ${token}`);
  const sitesOf = (app: TestApp, token: string) => app.http.get('/api/v1/sites').set('Authorization', `Bearer ${token}`);

  beforeAll(async () => {
    todo = await startWithDatabase('todo-api');
    feedback = await startApp('feedback-export', todo.database.url);
    userId = (await insertUser(todo.dataSource)).id;
  });
  afterAll(async () => {
    await feedback?.close();
    await todo?.close();
  });

  it('keeps every other app checking sessions on its own database after a replica started later closes', async () => {
    const replica = await startApp('todo-api', todo.database.url);
    const token = await todo.accessTokenFor(userId);
    expect((await sessionsOf(replica, token)).status).toBe(200);
    await replica.close();

    expect((await sessionsOf(todo, token)).status).toBe(200);
    expect((await sitesOf(feedback, token)).status).toBe(200);
  });

  it('still refuses what it refused: a revoked session and a missing token answer 401 AUTH_REQUIRED on the apps left', async () => {
    const replica = await startApp('todo-api', todo.database.url);
    await replica.close();
    const token = await todo.accessTokenFor(userId);
    await todo.dataSource.query(`UPDATE sessions SET revoked_at = now() WHERE user_id = $1`, [userId]);
    for (const answer of [await sessionsOf(todo, token), await sitesOf(feedback, token), await todo.http.get('/api/v1/auth/sessions')]) {
      expect({ status: answer.status, code: answer.body.error?.code }).toEqual({ status: 401, code: 'AUTH_REQUIRED' });
    }
  });
});
