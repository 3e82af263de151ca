import { AppException, trimTrailingSlashes } from '#libs/common';
import type { AppConfig } from '#libs/config';

/** Path of both services' MCP endpoint. */
export const MCP_PATH = '/api/v1/mcp';

/** Scopes of the todo MCP resource: the REST model's read and write. */
export const TODO_SCOPES = { read: 'todos:read', write: 'todos:write' } as const;

/** Scopes of the feedback MCP resource: every site of the account, read or write, and the portfolio (read). */
export const FEEDBACK_SCOPES = { read: 'feedback:read', write: 'feedback:write', portfolio: 'portfolio:read' } as const;

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

function mcpResource(baseUrl: string, config: AppConfig, scopes: readonly string[], name: string): ProtectedResource {
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

export function todoMcpResource(config: AppConfig): ProtectedResource {
  return mcpResource(config.publicBaseUrl, config, [TODO_SCOPES.read, TODO_SCOPES.write], 'Todo MCP');
}

export function feedbackMcpResource(config: AppConfig): ProtectedResource {
  return mcpResource(config.feedbackPublicBaseUrl, config, [FEEDBACK_SCOPES.read, FEEDBACK_SCOPES.write, FEEDBACK_SCOPES.portfolio], 'Feedback MCP');
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
export function bearerChallenge(resource: ProtectedResource): string {
  return `Bearer resource_metadata="${resource.metadataUrl}", scope="${resource.scopes.join(' ')}"`;
}

/** A 401 AppException with the resource's challenge added; anything else unchanged. */
export function withBearerChallenge(error: unknown, resource: ProtectedResource): unknown {
  if (!(error instanceof AppException) || error.status !== 401) return error;
  return new AppException(error.code, error.message, error.details, { ...error.headers, 'WWW-Authenticate': bearerChallenge(resource) });
}
