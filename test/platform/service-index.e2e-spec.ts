import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '#libs/testing';
import { startApp, type TestApp } from '../support/test-apps.js';

/** `GET /`: a small public index of each service pointing to its API, documentation and pages. */
describe('service index at /', () => {
  let database: TestDatabase;
  let todo: TestApp;
  let feedback: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase({ migrated: true });
    todo = await startApp('todo-api', database.url, { PUBLIC_BASE_URL: 'https://todo.example.com' });
    feedback = await startApp('feedback-export', database.url, { FEEDBACK_PUBLIC_BASE_URL: 'https://feedback.example.com/' });
  });
  afterAll(async () => {
    await feedback?.close();
    await todo?.close();
    await database?.drop();
  });

  it('todo-api answers its name and the links to its API base, documentation and account pages, without credentials', async () => {
    const res = await todo.http.get('/').expect(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        service: 'todo-api',
        title: 'Todo API',
        links: [
          { name: 'API base', href: 'https://todo.example.com/api/v1' },
          { name: 'Swagger UI', href: 'https://todo.example.com/api/docs' },
          { name: 'OpenAPI JSON', href: 'https://todo.example.com/api/v1/openapi.json' },
          { name: 'Account pages', href: 'https://todo.example.com/account' },
        ],
      },
    });
  });

  it('feedback-export adds its dashboard and widget script', async () => {
    const res = await feedback.http.get('/').expect(200);
    expect(res.body.data.service).toBe('feedback-export');
    expect(res.body.data.links).toEqual(
      expect.arrayContaining([
        { name: 'Swagger UI', href: 'https://feedback.example.com/api/docs' },
        { name: 'Dashboard', href: 'https://feedback.example.com/dashboard' },
        { name: 'Widget script', href: 'https://feedback.example.com/widget.js' },
      ]),
    );
    // Each link is a route the service serves.
    for (const { href } of res.body.data.links as Array<{ href: string }>) {
      const path = new URL(href).pathname;
      if (path !== '/api/v1') await feedback.http.get(path).expect(200);
    }
  });

  it('is documented in both OpenAPI documents, outside any security scheme', async () => {
    for (const app of [todo, feedback]) {
      const doc = (await app.http.get('/api/v1/openapi.json').expect(200)).body;
      const operation = doc.paths['/'].get;
      expect(operation.operationId).toBe('getServiceIndex');
      // Public: an explicit empty requirement, so no document-wide security applies to it.
      expect(operation.security).toEqual([]);
      expect(operation.responses['200'].content['application/json'].schema.properties.data.$ref).toBe('#/components/schemas/ServiceIndexDto');
    }
  });

  it('other methods on / answer 405 in the envelope', async () => {
    const res = await todo.http.post('/').send({}).expect(405);
    expect(res.body).toEqual({ success: false, error: expect.objectContaining({ code: 'METHOD_NOT_ALLOWED' }) });
    expect(res.headers.allow).toContain('GET');
  });
});
