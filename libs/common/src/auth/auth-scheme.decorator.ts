import { SetMetadata } from '@nestjs/common';

/**
 * How a route authenticates. Every route names one; a route that names none is refused
 * (and the app will not start: see assertEveryRouteHasScheme).
 */
export type AuthScheme =
  | 'public'
  | 'jwt'
  | 'api-key'
  | 'jwt-or-api-key'
  | 'admin-key'
  | 'site-read'
  | 'site-write'
  | 'portfolio'
  /** Any feedback export token (sk_, wk_ or ok_): the feedback MCP endpoint, whose tools check their own scope. */
  | 'feedback-token'
  /** The todo MCP endpoint: an API key, or an OAuth access token issued for that resource (todos:read / todos:write). */
  | 'todo-mcp'
  /** The feedback MCP endpoint: a feedback export token, or an OAuth access token issued for that resource. */
  | 'feedback-mcp'
  /** Operators' Prometheus scraper (METRICS_TOKEN): GET /metrics, served by every app. */
  | 'metrics-token';

export const AUTH_SCHEME = 'auth-scheme';

/**
 * The route (or every route of the controller) authenticates with `scheme`. The OpenAPI
 * document's `security` of the route is derived from it (see openapi-finish.ts).
 */
export const UseAuth = (scheme: AuthScheme) => SetMetadata(AUTH_SCHEME, scheme);

/** The route needs no credentials; said explicitly so that review sees it. */
export const Public = () => UseAuth('public');
