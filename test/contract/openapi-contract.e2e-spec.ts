import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { BODY_METHODS, ERROR_CATALOGUE, ErrorCode, listRoutes, OVERLOAD_EXEMPT_PATHS, publicCodeOf, refusesOtherBodies } from '#libs/common';
import { EventSource } from 'eventsource';
import { generate as generateTotp } from 'otplib';
import { createTestDatabase, insertUser, SmtpTestServer, until, type TestDatabase } from '#libs/testing';
import { verificationCode } from '../support/account-mails.js';
import { grantBetaAccess } from '../support/api-access.js';
import { insertApiKey } from '../support/api-keys.js';
import { startApp, type TestApp } from '../support/test-apps.js';
import { ResponseSchemas } from '../reliability/support/response-schemas.js';

/**
 * The two OpenAPI documents as a front-end team meets them:
 * - each equals its reviewed snapshot (test/contract/openapi/*.json), so every contract change shows in
 *   review. After a deliberate change: `UPDATE_OPENAPI_SNAPSHOTS=1 npm test -- test/contract`, then
 *   read the diff of the snapshot before committing it;
 * - each lints clean under redocly (redocly.yaml: `recommended` plus stricter example checks);
 * - openapi-typescript generates types from the live documents and a strict openapi-fetch client
 *   (client/journeys.ts) compiles against them and runs its journeys against both apps.
 */

const run = promisify(execFile);
const OUT = join(process.cwd(), 'test-results', 'contract');
const SNAPSHOTS = join(process.cwd(), 'test', 'contract', 'openapi');
const ADMIN_KEY = 'contract-admin-key-0123456789';
const SERVICES = ['todo-api', 'feedback-export'] as const;
type Service = (typeof SERVICES)[number];
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

// Public URLs as in production (redocly refuses localhost servers); the apps still listen on 127.0.0.1.
const ENV = {
  ADMIN_API_KEY: ADMIN_KEY,
  PUBLIC_BASE_URL: 'https://todo.contract.test',
  FEEDBACK_PUBLIC_BASE_URL: 'https://feedback.contract.test',
};

/** The enum of an error answer's code: `error.code` of the envelope, `error.data.code` of an MCP endpoint's JSON-RPC error. */
function codeEnumOf(response: any): string[] {
  const error = response?.content?.['application/json']?.schema?.allOf?.[1]?.properties?.error;
  const code = error?.allOf?.[1]?.properties?.code ?? error?.allOf?.[1]?.properties?.data?.allOf?.[1]?.properties?.code;
  return code?.enum ?? [];
}

function operations(document: any): Array<{ key: string; operation: any }> {
  return Object.entries<any>(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ key: `${method.toUpperCase()} ${path}`, operation: item[method] })),
  );
}

/** client/journeys.ts as seen from here (its own types come from the generated files). */
interface Journeys {
  todoJourney(baseUrl: string, adminKey: string, email: string): Promise<{ accessToken: string; apiKeyPrefix: string; listed: string[]; replayed: string | null; errors: Record<string, string> }>;
  feedbackJourney(baseUrl: string, accessToken: string): Promise<{ feedbackIds: string[]; caughtUp: boolean; mcpTools: string[]; errors: Record<string, string> }>;
  mfaJourney(
    baseUrl: string,
    email: string,
    verificationCodeFor: (email: string) => Promise<string>,
    codeFor: (secret: string, steps: number) => Promise<string>,
  ): Promise<{ userId: string; recoveryCodes: number; loginAnswer: string; signedInAs: string }>;
}

describe('OpenAPI contract', () => {
  const smtp = new SmtpTestServer();
  let database: TestDatabase;
  const apps = {} as Record<Service, TestApp>;
  const documents = {} as Record<Service, any>;

  beforeAll(async () => {
    await smtp.start();
    database = await createTestDatabase({ migrated: true });
    apps['todo-api'] = await startApp('todo-api', database.url, { ...ENV, SMTP_URL: smtp.url });
    apps['feedback-export'] = await startApp('feedback-export', database.url, ENV);
    mkdirSync(join(OUT, 'types'), { recursive: true });
    for (const service of SERVICES) {
      documents[service] = (await apps[service].http.get('/api/v1/openapi.json').expect(200)).body;
      writeFileSync(join(OUT, `${service}.openapi.json`), JSON.stringify(documents[service], null, 2));
    }
  }, 60_000);
  afterAll(async () => {
    for (const app of Object.values(apps)) await app?.close();
    await database?.drop();
    await smtp.stop();
  });

  it.each(SERVICES)('%s: the document equals its reviewed snapshot', (service) => {
    const file = join(SNAPSHOTS, `${service}.json`);
    if (process.env.UPDATE_OPENAPI_SNAPSHOTS === '1') writeFileSync(file, `${JSON.stringify(documents[service], null, 2)}\n`);
    expect(existsSync(file)).toBe(true);
    // On a failure: the diff below is the contract change. If it is meant, update the snapshot (see above).
    expect(documents[service]).toEqual(JSON.parse(readFileSync(file, 'utf8')));
  });

  it.each(SERVICES)('%s: redocly lint finds no problem', async (service) => {
    const result = await run(
      process.execPath,
      ['node_modules/@redocly/cli/bin/cli.js', 'lint', join(OUT, `${service}.openapi.json`), '--config', 'redocly.yaml', '--format', 'json'],
      { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' }, maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const report = JSON.parse(result.stdout.slice(result.stdout.indexOf('{'))) as { problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }> };
    expect(report.problems.map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`)).toEqual([]);
  }, 60_000);

  it.each(SERVICES)('%s: every operation has its security, examples, error schemas and request id', (service) => {
    const gaps: string[] = [];
    for (const { key, operation } of operations(documents[service])) {
      if (!Array.isArray(operation.security)) gaps.push(`${key}: no security (public routes say security: [])`);
      for (const [type, media] of Object.entries<any>(operation.requestBody?.content ?? {})) {
        if (media.example === undefined && media.examples === undefined) gaps.push(`${key}: request ${type} has no example`);
      }
      const statuses = Object.keys(operation.responses);
      // A 503 alone (admission control's, on every route but the probes) does not make a page or a script a JSON operation.
      const json = statuses.some((status) => status !== '503' && operation.responses[status].content?.['application/json']);
      if (json && key !== 'GET /api/v1/openapi.json' && !statuses.some((status) => status.startsWith('4'))) gaps.push(`${key}: no 4xx answer`);
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (!response.headers?.['X-Request-Id']) gaps.push(`${key} ${status}: X-Request-Id not documented`);
        if (status === '429' && !response.headers?.['Retry-After']) gaps.push(`${key} 429: Retry-After not documented`);
        const contents = Object.entries<any>(response.content ?? {});
        if (Number(status) >= 400 && contents.length === 0) gaps.push(`${key} ${status}: error without a schema`);
        for (const [type, media] of contents) {
          if (!media.schema || (type === 'application/json' && media.schema.type === 'object' && !media.schema.properties && !media.schema.$ref)) {
            gaps.push(`${key} ${status}: ${type} is a free-form object`);
          }
          if (status.startsWith('2') && media.example === undefined && media.examples === undefined) gaps.push(`${key} ${status}: ${type} has no example`);
        }
      }
    }
    expect(gaps).toEqual([]);
  });

  it.each(SERVICES)('%s: every answer the route table says a route can give is in the document, error.code an enum of its codes', (service) => {
    const document = documents[service];
    const statusesOfCode = new Map<string, Set<number>>();
    for (const code of Object.values(ErrorCode)) statusesOfCode.set(publicCodeOf(code), (statusesOfCode.get(publicCodeOf(code)) ?? new Set()).add(ERROR_CATALOGUE[code].status));
    const gaps: string[] = [];
    const routes = listRoutes(apps[service].app).filter((route) => route.scheme !== 'NONE');
    expect(routes.length).toBeGreaterThan(10);
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      const operation = document.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()];
      if (!operation) continue; // @ApiExcludeEndpoint
      // What the route's metadata says it can answer, besides what its @ApiErrors declares.
      const expected: Array<[number, string]> = [];
      if (route.database !== false || (route.rateLimit && (route.rateLimit.storeOutage ?? 'fail-closed') === 'fail-closed')) expected.push([503, 'SERVICE_UNAVAILABLE']);
      // Admission control refuses every route but the probes, status and metrics, in the envelope (on MCP's JSON-RPC 503 only in its description).
      const jsonRpc503 = operation.responses[503]?.content?.['application/json']?.schema?.allOf?.[0]?.$ref === '#/components/schemas/JsonRpcErrorResponseDto';
      if (!OVERLOAD_EXEMPT_PATHS.includes(route.path)) {
        if (!jsonRpc503) expected.push([503, 'SERVICE_OVERLOADED']);
        else if (!operation.responses[503].description.includes('SERVICE_OVERLOADED')) gaps.push(`${key}: SERVICE_OVERLOADED not described on its JSON-RPC 503`);
      }
      if (route.rateLimit) expected.push([429, 'RATE_LIMITED']);
      if (BODY_METHODS.has(route.method)) expected.push([413, 'PAYLOAD_TOO_LARGE']);
      if (refusesOtherBodies(route.method, route.bodyMediaTypes ?? [])) expected.push([415, 'UNSUPPORTED_MEDIA_TYPE']);
      for (const [status, code] of expected) {
        if (!codeEnumOf(operation.responses[status]).includes(code)) gaps.push(`${key}: ${status} ${code} not documented`);
        if (status === 503 && !operation.responses[503]?.headers?.['Retry-After']) gaps.push(`${key}: 503 without Retry-After`);
      }
    }
    const withoutCode: string[] = [];
    for (const { key, operation } of operations(document)) {
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        const media = response.content?.['application/json'];
        if (Number(status) < 400 || !media) continue;
        // Every JSON error answer narrows its code to the codes its examples show, each of that status in the catalogue.
        const codes = codeEnumOf(response);
        if (codes.length === 0) {
          withoutCode.push(`${key} ${status}`);
          continue;
        }
        const jsonRpc = media.schema.allOf[0].$ref === '#/components/schemas/JsonRpcErrorResponseDto';
        if (!jsonRpc && media.schema.allOf[0].$ref !== '#/components/schemas/ErrorEnvelopeDto') gaps.push(`${key} ${status}: not the error envelope`);
        const values = media.examples ? Object.values<any>(media.examples).map((example) => example.value) : [media.example];
        const shown = values.map((value) => (jsonRpc ? value?.error?.data?.code : value?.error?.code));
        if ([...new Set(shown)].sort().join() !== codes.join()) gaps.push(`${key} ${status}: enum ${codes.join()} but examples ${shown.join()}`);
        for (const code of codes) if (!statusesOfCode.get(code)?.has(Number(status))) gaps.push(`${key} ${status}: ${code} is not a ${status} code in the catalogue`);
      }
    }
    // Only the MCP transport's own refusals carry no REST code (a JSON-RPC code and message; 400 may also be the envelope).
    expect(withoutCode).toEqual(['POST /api/v1/mcp 400', 'POST /api/v1/mcp 406', 'POST /api/v1/mcp 415']);
    expect(gaps).toEqual([]);
  });

  it.each(SERVICES)('%s: a method a path does not list answers 405 with Allow naming the listed ones, as the document says', async (service) => {
    const document = documents[service];
    expect(document.info.description).toContain('405 `METHOD_NOT_ALLOWED`');
    const answers: string[] = [];
    for (const [path, item] of Object.entries<any>(document.paths)) {
      const listed = METHODS.filter((method) => item[method]).map((method) => method.toUpperCase());
      const other = ['PATCH', 'PUT', 'DELETE', 'POST'].find((method) => !listed.includes(method))!;
      const url = path.replace(/\{\w+\}/g, '3b241101-e2bb-4255-8caf-4136c566a962');
      const response = await apps[service].http[other.toLowerCase() as 'patch'](url);
      const allow = (response.headers.allow ?? '').split(', ').filter((method: string) => method !== 'HEAD');
      answers.push(`${other} ${path}: ${response.status} ${response.body?.error?.code} ${allow.sort().join(',')}`);
    }
    // Allow names what the URL answers: /todos/events is also /todos/{todoId}, so it lists that path's methods too.
    const templates = Object.entries<any>(document.paths).map(([path, item]) => ({
      pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`),
      methods: METHODS.filter((method) => item[method]).map((method) => method.toUpperCase()),
    }));
    const expected = Object.entries<any>(document.paths).map(([path, item]) => {
      const listed = METHODS.filter((method) => item[method]).map((method) => method.toUpperCase());
      const url = path.replace(/\{\w+\}/g, '3b241101-e2bb-4255-8caf-4136c566a962');
      const allowed = [...new Set(templates.filter((template) => template.pattern.test(url)).flatMap((template) => template.methods))].sort();
      return `${['PATCH', 'PUT', 'DELETE', 'POST'].find((method) => !listed.includes(method))} ${path}: 405 METHOD_NOT_ALLOWED ${allowed.join(',')}`;
    });
    expect(answers).toEqual(expected);
  });

  it('todo-api: every event the realtime stream sends is one of its documented event schemas, no field undocumented', async () => {
    const stream = documents['todo-api'].paths['/api/v1/todos/events'].get.responses[200].content['text/event-stream'];
    expect(stream.schema.type).toBe('array');
    const events = stream.schema.items.oneOf.map((item: { $ref: string }) => documents['todo-api'].components.schemas[item.$ref.split('/').pop()!]);
    const documentedNames = events.map((schema: any) => schema.properties.event.enum).flat().sort();
    expect(documentedNames).toEqual(['todo.created', 'todo.deleted', 'todo.updated']);
    const validate = new ResponseSchemas(documents['todo-api']).closedValidatorOf(stream.schema.items);

    const t = apps['todo-api'];
    const user = await insertUser(t.dataSource);
    await grantBetaAccess(t.dataSource, user.id);
    const { key } = await insertApiKey(t.dataSource, user.id);
    const received: Array<{ id: string; event: string; data: unknown }> = [];
    const source = new EventSource(`${t.baseUrl}/api/v1/todos/events?access_token=${key}`);
    try {
      // Every name the document lists is listened for: a name the stream sends but the document lacks never arrives, and the count below fails.
      for (const name of documentedNames) source.addEventListener(name, (event) => received.push({ id: event.lastEventId, event: name, data: JSON.parse(event.data) }));
      await new Promise<void>((resolve, reject) => {
        source.onopen = () => resolve();
        source.onerror = () => reject(new Error('the stream did not open'));
      });
      const created = await t.http.post('/api/v1/todos').set('X-API-Key', key).send({ text: 'Contract event', priority: 2, category: 'contract' }).expect(201);
      await t.http.put(`/api/v1/todos/${created.body.data.todo.id}`).set('X-API-Key', key).send({ estimatedDurationMinutes: 5 }).expect(200);
      await t.http.delete(`/api/v1/todos/${created.body.data.todo.id}`).set('X-API-Key', key).expect(200);
      await until(() => received.length === 3, 5000, 'the three events');
    } finally {
      source.close();
    }
    expect(received.map((event) => event.event)).toEqual(['todo.created', 'todo.updated', 'todo.deleted']);
    for (const event of received) expect({ event, errors: validate(event) ? null : validate.errors }).toEqual({ event, errors: null });
  });

  it('both documents declare only the schemes they use, opaque tokens without a JWT format (the OAuth access tokens of MCP are JWTs)', () => {
    const schemes = Object.fromEntries(SERVICES.map((service) => [service, documents[service].components.securitySchemes]));
    expect(Object.keys(schemes['todo-api']).sort()).toEqual(['adminKey', 'apiKey', 'apiKeyHeader', 'jwt', 'mcpOAuth']);
    expect(Object.keys(schemes['feedback-export']).sort()).toEqual(['jwt', 'mcpOAuth', 'portfolioToken', 'siteToken', 'siteWriteToken']);
    for (const service of SERVICES) {
      for (const [name, scheme] of Object.entries<any>(schemes[service])) expect({ name, jwtFormat: scheme.bearerFormat === 'JWT' }).toEqual({ name, jwtFormat: name === 'jwt' || name === 'mcpOAuth' });
      for (const { key, operation } of operations(documents[service])) {
        const names = (operation.security as Array<Record<string, unknown>>).flatMap((requirement) => Object.keys(requirement));
        expect({ key, duplicates: names.length - new Set(names).size }).toEqual({ key, duplicates: 0 });
      }
    }
    expect(documents['todo-api'].paths['/api/v1/openapi.json'].get.security).toEqual([]);
    expect(documents['feedback-export'].paths['/api/v1/widget/feedback'].post.security).toEqual([]);
    expect(documents['todo-api'].info.license.url).toBe('https://todo.contract.test/api/docs');
    expect(documents['feedback-export'].servers).toEqual([{ url: 'https://feedback.contract.test' }]);
  });

  it('a strict openapi-fetch client generated from the live documents compiles and runs both journeys', async () => {
    for (const service of SERVICES) {
      await run(process.execPath, ['node_modules/openapi-typescript/bin/cli.js', join(OUT, `${service}.openapi.json`), '--output', join(OUT, 'types', `${service}.ts`)]);
    }
    // Compiled as the front-end would: a type error here is a contract change that breaks generated clients.
    const compiled = await run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'test/contract/client/tsconfig.json']).catch(
      (error: { stdout?: string; stderr?: string }) => ({ stdout: `${error.stdout ?? ''}${error.stderr ?? ''}`, failed: true }),
    );
    expect(compiled.stdout).toBe('');

    // Loaded by path: the journeys compile against the generated types, which `npm run typecheck` does not have.
    const journeys = './client/journeys.js';
    const { todoJourney, feedbackJourney, mfaJourney } = (await import(journeys)) as Journeys;
    const todo = await todoJourney(apps['todo-api'].baseUrl, ADMIN_KEY, `contract-${Date.now()}@example.com`);
    expect(todo.apiKeyPrefix).toMatch(/^tdk_/);
    expect(todo.listed).toEqual(['Renew the passport']);
    expect(todo.replayed).toBe('true');
    expect(todo.errors.signup).toMatch(/^VALIDATION_ERROR: /);
    expect(todo.errors.signup).toContain('email: email must be an e-mail address');
    expect(todo.errors.missingPriority).toContain('priority: priority is required');
    expect(todo.errors.missingPriority).not.toContain('must not be greater than');
    expect(todo.errors.jwtOnTodos).toMatch(/^INVALID_API_KEY: .*API key/);
    expect(todo.errors.jwtOnTodos).toContain('access token');
    expect(todo.errors.betaBoth).toMatch(/^VALIDATION_ERROR: /);
    expect(todo.errors.missingTodo).toMatch(/^NOT_FOUND: /);
    expect(todo.errors.missingTodoAction).toBe('show that the todo is gone');

    const feedback = await feedbackJourney(apps['feedback-export'].baseUrl, todo.accessToken);
    expect(feedback.feedbackIds).toHaveLength(1);
    expect(feedback.caughtUp).toBe(true);
    expect(feedback.mcpTools).toEqual(expect.arrayContaining(['list_feedback', 'list_question_batches']));
    expect(feedback.errors.cursor).toMatch(/^VALIDATION_ERROR: .*since/);
    expect(feedback.errors.triageWithRead).toMatch(/^INVALID_TOKEN: /);
    expect(feedback.errors.siteWithoutName).toContain('name: name is required');

    // The second factor (enrolled once the mailed code confirmed the address): login answers MFA_REQUIRED (its challenge in error.details), verify answers login's token data.
    const codeFor = async (secret: string, steps: number) => {
      const into = (Date.now() / 1000) % 30;
      if (into > 27) await sleep((30 - into) * 1000 + 50);
      return generateTotp({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });
    };
    const mfa = await mfaJourney(apps['todo-api'].baseUrl, `contract-mfa-${Date.now()}@example.com`, (email) => verificationCode(smtp, email), codeFor);
    expect(mfa).toEqual({ userId: expect.any(String), recoveryCodes: 10, loginAnswer: 'ask for the authenticator code', signedInAs: mfa.userId });
  }, 120_000);
});
