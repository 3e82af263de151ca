import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { listRoutes, rawResponsePaths, type RouteEntry } from '#libs/common';
import { startDashboardApps, type TestApp } from '../support/test-apps.js';

/**
 * Every route of both services with its auth scheme. A change of who may call what
 * shows up here in review: update this table deliberately, never by copying output.
 */
const TODO_API_ROUTES = [
  'GET / public',
  'GET /api/v1/status public',
  // Orchestrator probes and the operators' scrape (METRICS_TOKEN), outside /api/v1.
  'GET /livez public',
  'GET /readyz public',
  'GET /metrics metrics-token',
  'POST /api/v1/auth/signup public',
  'POST /api/v1/auth/login public',
  'GET /api/v1/auth/verify jwt',
  'POST /api/v1/auth/refresh public',
  'POST /api/v1/auth/logout jwt',
  'POST /api/v1/auth/forgot-password public',
  'POST /api/v1/auth/verify-reset-code public',
  'POST /api/v1/auth/reset-password public',
  'POST /api/v1/auth/change-password jwt',
  'POST /api/v1/auth/verify-email public',
  'POST /api/v1/auth/verify-email/resend jwt',
  'POST /api/v1/auth/mfa/verify public',
  'POST /api/v1/auth/mfa/passkey-options public',
  'POST /api/v1/auth/passkey/options public',
  'POST /api/v1/auth/passkey/verify public',
  'GET /api/v1/auth/sessions jwt',
  'DELETE /api/v1/auth/sessions/:sessionId jwt',
  'GET /api/v1/billing/subscription jwt',
  'POST /api/v1/billing/checkout-session jwt',
  'POST /api/v1/billing/portal-session jwt',
  'POST /api/v1/billing/subscription/cancel jwt',
  'POST /api/v1/billing/subscription/reactivate jwt',
  'GET /api/v1/billing/beta admin-key',
  'POST /api/v1/billing/beta/grant admin-key',
  'POST /api/v1/billing/beta/revoke admin-key',
  'POST /api/v1/billing/webhook public',
  'GET /api/v1/auth/api-keys jwt',
  'POST /api/v1/auth/api-keys jwt',
  'DELETE /api/v1/auth/api-keys/:keyId jwt',
  'POST /api/v1/auth/api-keys/:keyId/rotate jwt',
  'GET /api/v1/auth/api-keys/current api-key',
  'GET /api/v1/todos api-key',
  'POST /api/v1/todos api-key',
  'GET /api/v1/todos/:todoId api-key',
  'PUT /api/v1/todos/:todoId api-key',
  'DELETE /api/v1/todos/:todoId api-key',
  'GET /api/v1/todos/events jwt-or-api-key',
  'POST /api/v1/webhooks jwt-or-api-key',
  'GET /api/v1/webhooks jwt-or-api-key',
  'POST /api/v1/webhooks/deliveries/:deliveryId/replay jwt-or-api-key',
  'GET /api/v1/webhooks/:webhookId jwt-or-api-key',
  'PATCH /api/v1/webhooks/:webhookId jwt-or-api-key',
  'DELETE /api/v1/webhooks/:webhookId jwt-or-api-key',
  'POST /api/v1/webhooks/:webhookId/rotate-secret jwt-or-api-key',
  'POST /api/v1/webhooks/:webhookId/test jwt-or-api-key',
  'GET /api/v1/webhooks/:webhookId/deliveries jwt-or-api-key',
  'POST /api/v1/webhooks/:webhookId/replay jwt-or-api-key',
  'GET /api/v1/account/export jwt',
  'DELETE /api/v1/account jwt',
  'GET /api/v1/account/activity jwt',
  'POST /api/v1/account/email jwt',
  'POST /api/v1/account/email/confirm public',
  'POST /api/v1/account/email/revert public',
  'GET /api/v1/account/mfa jwt',
  'POST /api/v1/account/mfa/totp jwt',
  'POST /api/v1/account/mfa/totp/confirm jwt',
  'DELETE /api/v1/account/mfa/totp jwt',
  'POST /api/v1/account/mfa/recovery-codes jwt',
  'GET /api/v1/account/passkeys jwt',
  'POST /api/v1/account/passkey-options jwt',
  'POST /api/v1/account/passkey-check-options jwt',
  'POST /api/v1/account/passkeys jwt',
  'PATCH /api/v1/account/passkeys/:passkeyId jwt',
  'DELETE /api/v1/account/passkeys/:passkeyId jwt',
  'POST /api/v1/mcp todo-mcp',
  'GET /.well-known/oauth-protected-resource/api/v1/mcp public',
  // The OAuth authorization server (oidc-provider answers these) and its sign-in page.
  'GET /.well-known/oauth-authorization-server public',
  'GET /api/v1/account/connected-apps jwt',
  'DELETE /api/v1/account/connected-apps/:clientId jwt',
  'POST /oauth/register public',
  'GET /oauth/assets/sign-in.css public',
  'GET /oauth/interaction/:uid public',
  'POST /oauth/interaction/:uid public',
  // The account pages (HTML and their script) and the stylesheet and icon every page shares.
  'GET /account public',
  'GET /account/sign-in public',
  'GET /account/sign-up public',
  'GET /account/verify-email public',
  'GET /account/forgot-password public',
  'GET /account/reset-password public',
  'GET /assets/account.js public',
  'GET /assets/app.css public',
  'GET /assets/page-kit.js public',
  'GET /assets/webhook-panel.js public',
  'GET /assets/simplewebauthn-browser.js public',
  'GET /favicon.ico public',
  'GET /favicon.svg public',
  ...['/.well-known/openid-configuration', '/oauth/authorize', '/oauth/authorize/*resume', '/oauth/register/*client', '/oauth/token', '/oauth/revoke', '/oauth/jwks'].map((path) => `ALL ${path} public`),
];

const FEEDBACK_EXPORT_ROUTES = [
  'GET / public',
  'GET /api/v1/status public',
  'GET /livez public',
  'GET /readyz public',
  'GET /metrics metrics-token',
  'POST /api/v1/sites jwt',
  'GET /api/v1/sites jwt',
  'GET /api/v1/sites/:siteId jwt',
  'PATCH /api/v1/sites/:siteId jwt',
  'DELETE /api/v1/sites/:siteId jwt',
  'POST /api/v1/sites/:siteId/tokens/read/rotate jwt',
  'POST /api/v1/sites/:siteId/tokens/write/rotate jwt',
  'POST /api/v1/sites/:siteId/identity-secret jwt',
  'GET /api/v1/portfolio-token jwt',
  'POST /api/v1/portfolio-token/rotate jwt',
  'GET /api/v1/export/feedback site-read',
  'GET /api/v1/export/portfolio/feedback portfolio',
  'PUT /api/v1/export/feedback/:id site-write',
  'GET /widget.js public',
  'POST /api/v1/widget/feedback public',
  'POST /api/v1/mcp feedback-mcp',
  'GET /.well-known/oauth-protected-resource/api/v1/mcp public',
  // Question batches (site tokens, owner JWT) and the recipient's share page (the token in the path is the credential).
  'POST /api/v1/export/questions site-write',
  'GET /api/v1/export/questions site-read',
  'GET /api/v1/export/questions/:id site-read',
  'GET /api/v1/export/questions/:id/link site-write',
  'PATCH /api/v1/export/questions/:id site-write',
  'DELETE /api/v1/export/questions/:id site-write',
  'POST /api/v1/export/questions/:id/send site-write',
  'GET /api/v1/sites/:siteId/questions jwt',
  'POST /api/v1/sites/:siteId/questions jwt',
  'POST /api/v1/sites/:siteId/questions/preview jwt',
  'GET /api/v1/sites/:siteId/questions/:batchId jwt',
  'GET /api/v1/sites/:siteId/questions/:batchId/link jwt',
  'POST /api/v1/sites/:siteId/questions/:batchId/send jwt',
  'GET /q/:shareToken public',
  'GET /api/v1/share/:shareToken public',
  'PUT /api/v1/share/:shareToken/answers/:n public',
  'POST /api/v1/share/:shareToken/submit public',
  'GET /unsubscribe/:unsubscribeToken public',
  'POST /unsubscribe/:unsubscribeToken public',
  'GET /assets/app.css public',
  'GET /assets/page-kit.js public',
  'GET /assets/webhook-panel.js public',
  'GET /assets/share.js public',
  'GET /favicon.ico public',
  'GET /favicon.svg public',
  // Owner dashboard page and the owner-side feedback routes it uses.
  'GET /dashboard public',
  'GET /assets/dashboard.js public',
  'GET /api/v1/sites/:siteId/feedback jwt',
  'PUT /api/v1/sites/:siteId/feedback/:id jwt',
  'GET /api/v1/sites/:siteId/feedback/search jwt',
  'GET /api/v1/sites/:siteId/feedback/export.csv jwt',
  'POST /api/v1/sites/:siteId/feedback/status jwt',
  'GET /api/v1/feedback/new-counts jwt',
  // A site's webhook endpoints (its feedback and question-batch events): the site write token or the owner's JWT.
  'POST /api/v1/sites/:siteId/webhooks site-write-or-jwt',
  'GET /api/v1/sites/:siteId/webhooks site-write-or-jwt',
  'POST /api/v1/sites/:siteId/webhooks/deliveries/:deliveryId/replay site-write-or-jwt',
  'GET /api/v1/sites/:siteId/webhooks/:webhookId site-write-or-jwt',
  'PATCH /api/v1/sites/:siteId/webhooks/:webhookId site-write-or-jwt',
  'DELETE /api/v1/sites/:siteId/webhooks/:webhookId site-write-or-jwt',
  'POST /api/v1/sites/:siteId/webhooks/:webhookId/rotate-secret site-write-or-jwt',
  'POST /api/v1/sites/:siteId/webhooks/:webhookId/test site-write-or-jwt',
  'GET /api/v1/sites/:siteId/webhooks/:webhookId/deliveries site-write-or-jwt',
  'POST /api/v1/sites/:siteId/webhooks/:webhookId/replay site-write-or-jwt',
];

/** Routes that write their own body (@RawResponse): every other route answers in the success envelope. */
const TODO_API_RAW_PATHS = [
  '/metrics',
  '/api/v1/todos/events',
  '/api/v1/mcp',
  '/.well-known/oauth-protected-resource/api/v1/mcp',
  '/.well-known/oauth-authorization-server',
  '/oauth/assets/sign-in.css',
  '/oauth/interaction/:uid',
  '/.well-known/openid-configuration',
  '/oauth/authorize',
  '/oauth/authorize/*resume',
  '/oauth/register',
  '/oauth/register/*client',
  '/oauth/token',
  '/oauth/revoke',
  '/oauth/jwks',
  '/account',
  '/account/sign-in',
  '/account/sign-up',
  '/account/verify-email',
  '/account/forgot-password',
  '/account/reset-password',
  '/assets/account.js',
  '/assets/app.css',
  '/assets/page-kit.js',
  '/assets/webhook-panel.js',
  '/assets/simplewebauthn-browser.js',
  '/favicon.ico',
  '/favicon.svg',
];

const FEEDBACK_EXPORT_RAW_PATHS = [
  '/metrics',
  '/api/v1/sites/:siteId/feedback/export.csv',
  '/widget.js',
  '/api/v1/mcp',
  '/.well-known/oauth-protected-resource/api/v1/mcp',
  '/q/:shareToken',
  '/unsubscribe/:unsubscribeToken',
  '/assets/app.css',
  '/assets/page-kit.js',
  '/assets/webhook-panel.js',
  '/assets/share.js',
  '/favicon.ico',
  '/favicon.svg',
  '/dashboard',
  '/assets/dashboard.js',
];

/** The paths Express routes on (the envelope is chosen by the matched route's path). */
function expressRoutePaths(app: TestApp['app']): Set<string> {
  const express = app.getHttpAdapter().getInstance() as { router: { stack: Array<{ route?: { path: string } }> } };
  return new Set(express.router.stack.flatMap((layer) => (layer.route ? [layer.route.path] : [])));
}

describe('route auth table', () => {
  let apps: Awaited<ReturnType<typeof startDashboardApps>>;

  beforeAll(async () => {
    apps = await startDashboardApps();
  });
  afterAll(async () => {
    await apps?.close();
  });

  it('todo-api routes and schemes are exactly the reviewed table', () => {
    const actual = listRoutes(apps.todo.app).map((r) => `${r.method} ${r.path} ${r.scheme}`);
    expect(actual.sort()).toEqual([...TODO_API_ROUTES].sort());
  });

  it('feedback-export routes and schemes are exactly the reviewed table', () => {
    const actual = listRoutes(apps.feedback.app).map((r) => `${r.method} ${r.path} ${r.scheme}`);
    expect(actual.sort()).toEqual([...FEEDBACK_EXPORT_ROUTES].sort());
  });

  it.each([
    ['todo-api', () => apps.todo, TODO_API_RAW_PATHS],
    ['feedback-export', () => apps.feedback, FEEDBACK_EXPORT_RAW_PATHS],
  ] as const)('%s: the routes that write their own body are exactly the reviewed list, on paths Express matches', (_name, app, reviewed) => {
    const routes = listRoutes(app().app);
    expect([...rawResponsePaths(routes)].sort()).toEqual([...reviewed].sort());
    const routed = expressRoutePaths(app().app);
    expect(routes.map((route) => route.path).filter((path) => !routed.has(path))).toEqual([]);
  });

  it('refuses a path whose routes disagree about the envelope', () => {
    const route = (method: string, rawResponse: boolean): RouteEntry => ({ method, path: '/things', scheme: 'public', handler: `Things.${method}`, rawResponse });
    expect(() => rawResponsePaths([route('GET', true), route('POST', false)])).toThrow('POST /things');
    expect([...rawResponsePaths([route('GET', true), route('POST', true)])]).toEqual(['/things']);
  });
});
