import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';

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
  | 'feedback-token';

export const AUTH_SCHEME = 'auth-scheme';

const OPENAPI_SECURITY: Record<AuthScheme, MethodDecorator & ClassDecorator> = {
  public: applyDecorators(),
  jwt: applyDecorators(ApiBearerAuth('jwt')),
  'api-key': applyDecorators(ApiBearerAuth('apiKey'), ApiSecurity('apiKeyHeader')),
  'jwt-or-api-key': applyDecorators(ApiBearerAuth('jwt'), ApiBearerAuth('apiKey'), ApiSecurity('apiKeyHeader')),
  'admin-key': applyDecorators(ApiSecurity('adminKey')),
  'site-read': applyDecorators(ApiBearerAuth('siteToken')),
  'site-write': applyDecorators(ApiBearerAuth('siteToken')),
  portfolio: applyDecorators(ApiBearerAuth('portfolioToken')),
  'feedback-token': applyDecorators(ApiBearerAuth('siteToken'), ApiBearerAuth('portfolioToken')),
};

/** The route (or every route of the controller) authenticates with `scheme`. */
export const UseAuth = (scheme: AuthScheme) => applyDecorators(SetMetadata(AUTH_SCHEME, scheme), OPENAPI_SECURITY[scheme]);

/** The route needs no credentials; said explicitly so that review sees it. */
export const Public = () => UseAuth('public');
