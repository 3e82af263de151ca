/**
 * A small client written the way a front-end team writes one: openapi-fetch over the types
 * openapi-typescript generates from our live OpenAPI documents, compiled with `tsc --strict`
 * (tsconfig.json beside this file). A contract change that breaks such a client breaks the
 * compile or these journeys, and so `npm test` (test/contract/openapi-contract.e2e-spec.ts).
 *
 * Nothing here is typed by hand: every body, answer and error is the generated type.
 */
import assert from 'node:assert/strict';
import createClient from 'openapi-fetch';
import type { paths as FeedbackPaths } from 'contract-types/feedback-export.js';
import type { operations as TodoOperations, paths as TodoPaths } from 'contract-types/todo-api.js';

/** The error codes an operation can answer, as the generated types name them (the enum of each error answer's `error.code`). */
type ErrorCodeOf<Responses> = {
  [Status in keyof Responses]: Responses[Status] extends { content: { 'application/json': { error: { code: infer Code } } } } ? Code : never;
}[keyof Responses];

export interface TodoJourneyResult {
  userId: string;
  accessToken: string;
  apiKeyPrefix: string;
  todoId: number;
  listed: string[];
  replayed: string | null;
  errors: Record<string, string>;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** signup → beta → API key → todo → list, then the errors a client shows to people. */
export async function todoJourney(baseUrl: string, adminKey: string, email: string): Promise<TodoJourneyResult> {
  const api = createClient<TodoPaths>({ baseUrl });
  const password = 'correct horse battery staple';

  const signup = await api.POST('/api/v1/auth/signup', { body: { email, password, passwordConfirm: password } });
  if (!signup.data) throw new Error(`signup failed: ${JSON.stringify(signup.error)}`);
  assert.equal(signup.response.status, 201);
  const { token: accessToken, user } = signup.data.data;
  assert.ok(signup.response.headers.get('X-Request-Id'));

  const grant = await api.POST('/api/v1/billing/beta/grant', { headers: { 'X-Admin-API-Key': adminKey }, body: { userId: user.id } });
  if (!grant.data) throw new Error(`beta grant failed: ${JSON.stringify(grant.error)}`);
  assert.equal(grant.data.data.isBetaLifetime, true);

  const created = await api.POST('/api/v1/auth/api-keys', { headers: bearer(accessToken), body: { name: 'contract client' } });
  if (!created.data) throw new Error(`API key failed: ${JSON.stringify(created.error)}`);
  const apiKey = created.data.data.apiKey;

  const todoBody = { text: 'Renew the passport', priority: 2, category: 'errands', estimatedDurationMinutes: 30 };
  const idempotency = { 'Idempotency-Key': `contract-${user.id}` };
  const todo = await api.POST('/api/v1/todos', { headers: bearer(apiKey), params: { header: idempotency }, body: todoBody });
  if (!todo.data) throw new Error(`create todo failed: ${JSON.stringify(todo.error)}`);
  assert.equal(todo.response.status, 201);
  assert.ok(todo.response.headers.get('RateLimit-Remaining'));
  const replay = await api.POST('/api/v1/todos', { headers: bearer(apiKey), params: { header: idempotency }, body: todoBody });
  if (!replay.data) throw new Error(`replay failed: ${JSON.stringify(replay.error)}`);
  assert.equal(replay.data.data.todo.id, todo.data.data.todo.id);

  const list = await api.GET('/api/v1/todos', { headers: { 'X-API-Key': apiKey }, params: { query: { category: 'errands', sort: 'priority', limit: 10 } } });
  if (!list.data) throw new Error(`list failed: ${JSON.stringify(list.error)}`);

  const errors: Record<string, string> = {};
  const weakSignup = await api.POST('/api/v1/auth/signup', { body: { email: 'not-an-email', password: 'short' } });
  if (!weakSignup.error) throw new Error('a short password was accepted');
  errors.signup = describeError(weakSignup.error);

  const missingPriority = await api.POST('/api/v1/todos', {
    headers: bearer(apiKey),
    // @ts-expect-error priority is required: the generated type refuses the body, the server says so in words
    body: { text: 'No priority', category: 'errands' },
  });
  if (!missingPriority.error) throw new Error('a todo without priority was accepted');
  errors.missingPriority = describeError(missingPriority.error);

  const jwtOnTodos = await api.GET('/api/v1/todos', { headers: bearer(accessToken) });
  if (!jwtOnTodos.error) throw new Error('an access token was accepted on an API-key route');
  errors.jwtOnTodos = describeError(jwtOnTodos.error);

  const both = await api.POST('/api/v1/billing/beta/grant', {
    headers: { 'X-Admin-API-Key': adminKey },
    // Exactly one of userId or email (oneOf): a TypeScript union lets both through, the server does not.
    body: { userId: user.id, email },
  });
  if (!both.error) throw new Error('beta grant with both userId and email was accepted');
  errors.betaBoth = describeError(both.error);

  const missing = await api.GET('/api/v1/todos/{todoId}', { headers: bearer(apiKey), params: { path: { todoId: 2147483647 } } });
  if (!missing.error) throw new Error('a missing todo was found');
  errors.missingTodo = describeError(missing.error);
  errors.missingTodoAction = getTodoFailure(missing.error.error.code);

  return {
    userId: user.id,
    accessToken,
    apiKeyPrefix: created.data.data.key.prefix,
    todoId: todo.data.data.todo.id,
    listed: list.data.data.todos.map((item) => item.text),
    replayed: replay.response.headers.get('Idempotent-Replayed'),
    errors,
  };
}

export interface FeedbackJourneyResult {
  siteId: string;
  feedbackIds: string[];
  caughtUp: boolean;
  mcpTools: string[];
  errors: Record<string, string>;
}

/** site → token → widget → export (with the owner's JWT from the todo service), then the errors. */
export async function feedbackJourney(baseUrl: string, accessToken: string): Promise<FeedbackJourneyResult> {
  const api = createClient<FeedbackPaths>({ baseUrl });

  const site = await api.POST('/api/v1/sites', { headers: bearer(accessToken), body: { name: 'Contract site' } });
  if (!site.data) throw new Error(`create site failed: ${JSON.stringify(site.error)}`);
  const siteId = site.data.data.site.id;

  const read = await api.POST('/api/v1/sites/{siteId}/tokens/read/rotate', { headers: bearer(accessToken), params: { path: { siteId } } });
  if (!read.data) throw new Error(`read token failed: ${JSON.stringify(read.error)}`);
  const readToken = read.data.data.token;

  const widget = await api.POST('/api/v1/widget/feedback', {
    body: { siteKey: site.data.data.siteKey, type: 'bug', message: 'The pricing table overflows', rating: 2, pageUrl: 'https://example.com/pricing' },
  });
  if (!widget.data) throw new Error(`widget failed: ${JSON.stringify(widget.error)}`);

  const page = await api.GET('/api/v1/export/feedback', { headers: bearer(readToken), params: { query: { limit: 50 } } });
  if (!page.data) throw new Error(`export failed: ${JSON.stringify(page.error)}`);
  const next = await api.GET('/api/v1/export/feedback', { headers: bearer(readToken), params: { query: { since: page.data.data.nextCursor } } });
  if (!next.data) throw new Error(`export page 2 failed: ${JSON.stringify(next.error)}`);

  const tools = await api.POST('/api/v1/mcp', {
    headers: { ...bearer(readToken), Accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });
  if (!tools.data) throw new Error(`MCP tools/list failed: ${JSON.stringify(tools.error)}`);
  const answer = tools.data;
  if (!('result' in answer)) throw new Error(`MCP answered an error: ${JSON.stringify(answer)}`);
  const listed = (answer.result as { tools?: Array<{ name: string }> }).tools ?? [];

  const errors: Record<string, string> = {};
  const cursor = await api.GET('/api/v1/export/feedback', {
    headers: bearer(readToken),
    // @ts-expect-error the export pages with `since`, not `cursor`: the generated type says so, and so does the server
    params: { query: { cursor: page.data.data.nextCursor } },
  });
  if (!cursor.error) throw new Error('cursor= was accepted');
  errors.cursor = describeError(cursor.error);

  const firstId = page.data.data.feedback[0]?.id;
  if (!firstId) throw new Error('the widget feedback is not in the export');
  const triageWithRead = await api.PUT('/api/v1/export/feedback/{id}', { headers: bearer(readToken), params: { path: { id: firstId } }, body: { status: 'triaged' } });
  if (!triageWithRead.error) throw new Error('a read token triaged feedback');
  errors.triageWithRead = describeError(triageWithRead.error);

  const noName = await api.POST('/api/v1/sites', {
    headers: bearer(accessToken),
    // @ts-expect-error name is required
    body: {},
  });
  if (!noName.error) throw new Error('a site without a name was created');
  errors.siteWithoutName = describeError(noName.error);

  return { siteId, feedbackIds: page.data.data.feedback.map((item) => item.id), caughtUp: !next.data.data.hasMore, mcpTools: listed.map((tool) => tool.name), errors };
}

export interface MfaJourneyResult {
  userId: string;
  recoveryCodes: number;
  loginAnswer: string;
  signedInAs: string;
}

/**
 * Confirm the address with the mailed code (`verificationCodeFor(email)` is the mailbox; enrolling needs it), enrol an
 * authenticator, then sign in: login answers MFA_REQUIRED with a challenge token in error.details, and
 * POST /api/v1/auth/mfa/verify answers the same token data as login. `codeFor(secret, steps)` is the authenticator app.
 */
export async function mfaJourney(
  baseUrl: string,
  email: string,
  verificationCodeFor: (email: string) => Promise<string>,
  codeFor: (secret: string, steps: number) => Promise<string>,
): Promise<MfaJourneyResult> {
  const api = createClient<TodoPaths>({ baseUrl });
  const password = 'correct horse battery staple';
  const signup = await api.POST('/api/v1/auth/signup', { body: { email, password } });
  if (!signup.data) throw new Error(`signup failed: ${JSON.stringify(signup.error)}`);
  const { token, user } = signup.data.data;
  const confirmedAddress = await api.POST('/api/v1/auth/verify-email', { body: { token: await verificationCodeFor(email) } });
  if (!confirmedAddress.data) throw new Error(`e-mail verification failed: ${JSON.stringify(confirmedAddress.error)}`);

  const started = await api.POST('/api/v1/account/mfa/totp', { headers: bearer(token), body: { password } });
  if (!started.data) throw new Error(`enrolment failed: ${JSON.stringify(started.error)}`);
  const { secret, qrCodeDataUrl } = started.data.data;
  assert.match(qrCodeDataUrl, /^data:image\/png;base64,/);
  const confirmed = await api.POST('/api/v1/account/mfa/totp/confirm', { headers: bearer(token), body: { code: await codeFor(secret, -1) } });
  if (!confirmed.data) throw new Error(`confirmation failed: ${JSON.stringify(confirmed.error)}`);

  const login = await api.POST('/api/v1/auth/login', { body: { email, password } });
  if (!login.error) throw new Error('an account with a second factor signed in with its password alone');
  const loginAnswer = loginFailure(login.error.error.code);
  const challengeToken = login.error.error.details?.challengeToken;
  if (typeof challengeToken !== 'string') throw new Error(`MFA_REQUIRED without a challenge token: ${JSON.stringify(login.error)}`);

  const verified = await api.POST('/api/v1/auth/mfa/verify', { body: { challengeToken, code: await codeFor(secret, 0) } });
  if (!verified.data) throw new Error(`second factor failed: ${JSON.stringify(verified.error)}`);
  const me = await api.GET('/api/v1/auth/verify', { headers: bearer(verified.data.data.token) });
  if (!me.data) throw new Error(`the new access token was refused: ${JSON.stringify(me.error)}`);
  return { userId: user.id, recoveryCodes: confirmed.data.data.recoveryCodes.length, loginAnswer, signedInAs: me.data.data.user.id };
}

/** What a sign-in form does for each code login can answer (exhaustive: a new code fails `tsc`). */
function loginFailure(code: ErrorCodeOf<TodoOperations['login']['responses']>): string {
  switch (code) {
    case 'MFA_REQUIRED':
      return 'ask for the authenticator code';
    case 'VALIDATION_ERROR':
    case 'INVALID_CREDENTIALS':
      return 'say the e-mail or password is wrong';
    case 'PAYLOAD_TOO_LARGE':
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 'fix the client';
    case 'RATE_LIMITED':
    case 'SERVICE_UNAVAILABLE':
    case 'SERVICE_OVERLOADED':
      return 'retry after Retry-After';
    case 'INTERNAL_ERROR':
      return 'report the request id';
    default: {
      const unhandled: never = code;
      return unhandled;
    }
  }
}

/**
 * What a client does for each code GET /api/v1/todos/{todoId} can answer: a switch the compiler
 * checks is exhaustive (a code added to the operation's document fails `tsc` at `unhandled`).
 */
function getTodoFailure(code: ErrorCodeOf<TodoOperations['getTodo']['responses']>): string {
  switch (code) {
    case 'VALIDATION_ERROR':
      return 'fix the request';
    case 'API_KEY_REQUIRED':
    case 'INVALID_API_KEY':
      return 'ask for an API key';
    case 'SUBSCRIPTION_REQUIRED':
      return 'subscribe';
    case 'NOT_FOUND':
      return 'show that the todo is gone';
    case 'RATE_LIMITED':
    case 'SERVICE_UNAVAILABLE':
    case 'SERVICE_OVERLOADED':
      return 'retry after Retry-After';
    case 'INTERNAL_ERROR':
      return 'report the request id';
    default: {
      const unhandled: never = code;
      return unhandled;
    }
  }
}

/** What a client shows: the code, the message and each field's messages, from the generated error type. */
function describeError(body: { success: false; error: { code: string; message: string; details?: { fields?: Array<{ field: string; messages: string[] }> } } }): string {
  const fields = body.error.details?.fields?.map((field) => `${field.field}: ${field.messages.join('; ')}`) ?? [];
  return [`${body.error.code}: ${body.error.message}`, ...fields].join(' | ');
}
