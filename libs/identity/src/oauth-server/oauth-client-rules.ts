import { oidcErrors } from './oidc-provider-package.js';

/**
 * What a client may register (dynamic registration) or declare (client ID metadata document);
 * kept in oauth_records for as long as the client is used, so bounded.
 */
const OAUTH_CLIENT_LIMITS = {
  clientNameChars: 100,
  redirectUris: 10,
  uriChars: 2000,
  /** All recognised metadata of one client, as JSON. */
  metadataBytes: 8 * 1024,
} as const;

/** Hosts of a loopback redirect (RFC 8252 §7.3; `localhost` as MCP clients send it). */
const LOOPBACK_REDIRECT_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** A private-use URI scheme in reverse-domain form (RFC 8252 §7.1): opens an installed app, never a web page. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]{0,62}(\.[a-z0-9+-]{1,63}){1,8}:$/;

/**
 * Why a redirect URI is refused, or undefined. https anywhere; plain http only to the user's own
 * machine (a loopback redirect, RFC 8252 §7.3: a native client, whatever application_type it
 * declares, as MCP clients rarely declare one); a native client may also use a reverse-domain
 * private-use scheme. Never plain http to another host, never javascript:, data: or the like.
 */
function redirectUriProblem(uri: unknown, applicationType: unknown): string | undefined {
  if (typeof uri !== 'string') return 'redirect_uris must only contain strings';
  if (uri.length > OAUTH_CLIENT_LIMITS.uriChars) return `a redirect URI must be at most ${OAUTH_CLIENT_LIMITS.uriChars} characters`;
  const url = URL.parse(uri);
  if (!url) return 'redirect_uris must only contain valid URIs';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') return LOOPBACK_REDIRECT_HOSTS.has(url.hostname) ? undefined : 'a plain http redirect URI must be a loopback one (127.0.0.1, [::1] or localhost); use https';
  if (applicationType === 'native' && PRIVATE_USE_SCHEME.test(url.protocol)) return undefined;
  return 'redirect URIs must use https, loopback http, or (native clients) a reverse-domain private-use scheme';
}

/**
 * Checks a client's metadata (oidc-provider's extraClientMetadata validator: run on every
 * registration, every metadata document and every stored client loaded). Throws the RFC 7591
 * errors: invalid_redirect_uri, invalid_client_metadata.
 */
export function checkClientMetadata(metadata: Record<string, unknown>): void {
  const errors = oidcErrors();
  const size = Buffer.byteLength(JSON.stringify(metadata));
  if (size > OAUTH_CLIENT_LIMITS.metadataBytes) throw new errors.InvalidClientMetadata(`client metadata must be at most ${OAUTH_CLIENT_LIMITS.metadataBytes} bytes`);
  const name = metadata.client_name;
  if (typeof name === 'string' && name.length > OAUTH_CLIENT_LIMITS.clientNameChars) throw new errors.InvalidClientMetadata(`client_name must be at most ${OAUTH_CLIENT_LIMITS.clientNameChars} characters`);
  for (const key of ['client_uri', 'logo_uri', 'policy_uri', 'tos_uri', 'jwks_uri', 'initiate_login_uri']) {
    const value = metadata[key];
    if (typeof value === 'string' && value.length > OAUTH_CLIENT_LIMITS.uriChars) throw new errors.InvalidClientMetadata(`${key} must be at most ${OAUTH_CLIENT_LIMITS.uriChars} characters`);
  }
  const uris = metadata.redirect_uris;
  if (!Array.isArray(uris)) return;
  if (uris.length > OAUTH_CLIENT_LIMITS.redirectUris) throw new errors.InvalidClientMetadata(`at most ${OAUTH_CLIENT_LIMITS.redirectUris} redirect_uris`);
  for (const uri of uris) {
    const problem = redirectUriProblem(uri, metadata.application_type);
    if (problem) {
      const refusal = new errors.InvalidRedirectUri();
      refusal.error_description = problem;
      throw refusal;
    }
  }
}
