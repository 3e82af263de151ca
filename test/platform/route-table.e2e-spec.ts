import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { listRoutes } from '#libs/common';
import { createTestDatabase, type TestDatabase } from '#libs/testing';
import { startApp, type TestApp } from '../support/test-apps.js';

/**
 * Every route of both services with its auth scheme. A change of who may call what
 * shows up here in review: update this table deliberately, never by copying output.
 */
const TODO_API_ROUTES = [
  'GET /api/v1/status public',
];

const FEEDBACK_EXPORT_ROUTES = [
  'GET /api/v1/status public',
];

describe('route auth table', () => {
  let database: TestDatabase;
  let todo: TestApp;
  let feedback: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase();
    todo = await startApp('todo-api', database.url);
    feedback = await startApp('feedback-export', database.url);
  });
  afterAll(async () => {
    await todo?.close();
    await feedback?.close();
    await database?.drop();
  });

  it('todo-api routes and schemes are exactly the reviewed table', () => {
    const actual = listRoutes(todo.app).map((r) => `${r.method} ${r.path} ${r.scheme}`);
    expect(actual.sort()).toEqual([...TODO_API_ROUTES].sort());
  });

  it('feedback-export routes and schemes are exactly the reviewed table', () => {
    const actual = listRoutes(feedback.app).map((r) => `${r.method} ${r.path} ${r.scheme}`);
    expect(actual.sort()).toEqual([...FEEDBACK_EXPORT_ROUTES].sort());
  });
});
