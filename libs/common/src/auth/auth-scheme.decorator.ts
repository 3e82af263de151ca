import { SetMetadata } from '@nestjs/common';

/**
 * The auth schemes, by name: those of the shared account system are declared here; an app adds
 * its own by augmenting this interface (`declare module '#libs/common'`), maps each to its guard
 * (CoreModule's `authSchemes`) and to its OpenAPI security (createHttpApp's `openApi.security`).
 */
export interface AuthSchemes {
  public: true;
  jwt: true;
  /** Operators' Prometheus scraper (METRICS_TOKEN): GET /metrics, served by every app. */
  'metrics-token': true;
}

/**
 * How a route authenticates. Every route names one; a route that names none is refused
 * (and the app will not start: see assertEveryRouteHasScheme).
 */
export type AuthScheme = keyof AuthSchemes;

export const AUTH_SCHEME = 'auth-scheme';

/**
 * The route (or every route of the controller) authenticates with `scheme`. The OpenAPI
 * document's `security` of the route is derived from it (see openapi-finish.ts).
 */
export const UseAuth = (scheme: AuthScheme) => SetMetadata(AUTH_SCHEME, scheme);

/** The route needs no credentials; said explicitly so that review sees it. */
export const Public = () => UseAuth('public');
