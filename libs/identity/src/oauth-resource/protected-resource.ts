import { AppException, trimTrailingSlashes } from '#libs/common';
import type { AppConfig } from '#libs/config';

/** Path of both services' MCP endpoint. */
export const MCP_PATH = '/api/v1/mcp';

/** An OAuth protected resource (RFC 9728): an MCP endpoint whose tokens are issued for it alone. */
export interface ProtectedResource {
  /** The resource indicator (RFC 8707): the endpoint's public URL, and the `aud` of its access tokens. */
  resource: string;
  /** Where its metadata is served, publicly: the well-known prefix inserted before the resource's path. */
  metadataUrl: string;
  /** The local route of that metadata. */
  metadataPath: string;
  /** The issuer of its access tokens: the todo service's authorization server. */
  authorizationServer: string;
  scopes: readonly string[];
  name: string;
}

/** The authorization server's issuer: the todo service's public base URL. */
export function oauthIssuer(config: AppConfig): string {
  return trimTrailingSlashes(config.publicBaseUrl);
}

/** An app's MCP endpoint (at `baseUrl` + MCP_PATH) as a protected resource of the authorization server, with the scopes the app declares. */
export function mcpProtectedResource(baseUrl: string, config: AppConfig, scopes: readonly string[], name: string): ProtectedResource {
  const resource = `${trimTrailingSlashes(baseUrl)}${MCP_PATH}`;
  const url = new URL(resource);
  const metadataPath = `/.well-known/oauth-protected-resource${MCP_PATH}`;
  return {
    resource,
    metadataUrl: `${url.origin}/.well-known/oauth-protected-resource${url.pathname}`,
    metadataPath,
    authorizationServer: oauthIssuer(config),
    scopes,
    name,
  };
}

/** Whether an authorization detail (RFC 9396) is one for this resource (the others stay out of its tokens). */
export function isDetailFor(detail: unknown, audience: string): boolean {
  const locations = (detail as { locations?: unknown }).locations;
  return Array.isArray(locations) && locations.includes(audience);
}

/** RFC 9728 protected resource metadata. */
export function protectedResourceMetadata(resource: ProtectedResource): Record<string, unknown> {
  return {
    resource: resource.resource,
    authorization_servers: [resource.authorizationServer],
    scopes_supported: [...resource.scopes],
    bearer_methods_supported: ['header'],
    resource_name: resource.name,
  };
}

/**
 * The `WWW-Authenticate` challenge of a 401 (RFC 6750, RFC 9728 §5.1): where the resource's
 * metadata is and which scopes to ask for, so an agent can discover how to sign in.
 */
function bearerChallenge(resource: ProtectedResource): string {
  return `Bearer resource_metadata="${resource.metadataUrl}", scope="${resource.scopes.join(' ')}"`;
}

/** A 401 AppException with the resource's challenge added; anything else unchanged. */
export function withBearerChallenge(error: unknown, resource: ProtectedResource): unknown {
  if (!(error instanceof AppException) || error.status !== 401) return error;
  return new AppException(error.code, error.message, error.details, { ...error.headers, 'WWW-Authenticate': bearerChallenge(resource) });
}
