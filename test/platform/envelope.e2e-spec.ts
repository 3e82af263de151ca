import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { validateOpenApi } from '../support/validate-openapi.js';

describe.each(['todo-api', 'feedback-export'] as const)('platform behaviour of %s', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startWithDatabase(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers the status endpoint in the envelope with the health data', async () => {
    const res = await t.http.get('/api/v1/status').expect(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        status: 'ok',
        service: kind,
        version: '1.0.0',
        environment: 'test',
        timestamp: expect.any(String),
        checks: { db: 'ok' },
      },
    });
    expect(new Date(res.body.data.timestamp).toISOString()).toBe(res.body.data.timestamp);
  });

  it('answers an unknown route with 404 NOT_FOUND in the envelope', async () => {
    const res = await t.http.get('/api/v1/no-such-thing').expect(404);
    expect(res.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });

  it('answers a known path with a wrong method with 405 and Allow', async () => {
    const res = await t.http.delete('/api/v1/status').expect(405);
    expect(res.body.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(res.headers.allow).toBe('GET, HEAD');
  });

  it('answers malformed JSON with 400 VALIDATION_ERROR and no parser internals', async () => {
    const res = await t.http.post('/api/v1/status').set('Content-Type', 'application/json').send('{"a": ').expect(400);
    expect(res.body).toEqual({ success: false, error: { code: 'VALIDATION_ERROR', message: 'The request body is not valid JSON' } });
  });

  it('answers an array body with 400 VALIDATION_ERROR', async () => {
    const res = await t.http.post('/api/v1/status').set('Content-Type', 'application/json').send('[1,2]').expect(400);
    expect(res.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'The request body must be a JSON object' });
  });

  it('answers a 2 MiB body with 413 PAYLOAD_TOO_LARGE', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(2 * 1024 * 1024) });
    const res = await t.http.post('/api/v1/status').set('Content-Type', 'application/json').send(big).expect(413);
    expect(res.body).toEqual({ success: false, error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } });
  });

  it('echoes a well-formed X-Request-Id and makes one up otherwise', async () => {
    const echoed = await t.http.get('/api/v1/status').set('X-Request-Id', 'req-123.abc').expect(200);
    expect(echoed.headers['x-request-id']).toBe('req-123.abc');
    const fresh = await t.http.get('/api/v1/status').set('X-Request-Id', 'bad id with spaces').expect(200);
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves a valid OpenAPI 3.0.3 document, version 1.0.0, outside the envelope', async () => {
    const res = await t.http.get('/api/v1/openapi.json').expect(200);
    expect(res.body.openapi).toBe('3.0.3');
    expect(res.body.info.version).toBe('1.0.0');
    expect(res.body.success).toBeUndefined();
    expect(await validateOpenApi(res.body)).toBe('valid');
    expect(res.body.components.schemas.ErrorEnvelopeDto).toBeDefined();
    expect(res.body.paths['/api/v1/status'].get.responses['503']).toBeDefined();
  });

  it('serves Swagger UI at /api/docs', async () => {
    const res = await t.http.get('/api/docs/').expect(200);
    expect(res.text).toContain('swagger');
  });

  it('sends security headers', async () => {
    const res = await t.http.get('/api/v1/status').expect(200);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});
