import type { Configuration } from 'oidc-provider';
import type { AppConfig } from '#libs/config';

/** How long a fetched client ID metadata document is reused, in seconds: its Cache-Control max-age, within these bounds. */
export const CLIENT_METADATA_CACHE_SECONDS = { min: 60, max: 60 * 60 } as const;
/** The largest client ID metadata document accepted, in bytes (the draft's recommendation). */
export const CLIENT_METADATA_MAX_BYTES = 5 * 1024;

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document-02, which the MCP
 * authorization spec recommends): a client whose client_id is an https URL needs no registration;
 * oidc-provider fetches the document at that URL and validates it (client_id equal to the URL,
 * no client secret, redirect_uris and the rest through the same schema as a registration, https
 * URLs), with a 2.5 s timeout, no redirects, a size limit, an in-process cache, and no connection
 * to loopback, private or other special-use addresses (checked on the connected socket, so a DNS
 * answer changed in between does not get past it). Everything here is the library's; this only
 * switches it on and sets its bounds.
 */
export function clientIdMetadataDocumentFeature(): NonNullable<Configuration['features']>['clientIdMetadataDocument'] {
  return { enabled: true, ack: 'draft-02', cacheDuration: { ...CLIENT_METADATA_CACHE_SECONDS } };
}

/** The fetch the authorization server uses for client ID metadata documents (and nothing else: no other fetching feature is on). */
export function clientMetadataFetchOptions(config: AppConfig): Pick<Configuration, 'fetch' | 'fetchResponseBodyLimits'> {
  const limits = { fetchResponseBodyLimits: { 'client_id metadata document': CLIENT_METADATA_MAX_BYTES } };
  if (!config.oauthClientMetadataLoopback) return limits;
  return {
    ...limits,
    // Test switch (refused in production): a document at a loopback https URL is read over plain http
    // from the test's own server, without the special-use address guard.
    fetch: (url, options) => {
      const target = new URL(url);
      if (!LOOPBACK_HOSTS.has(target.hostname)) return fetch(url, options);
      target.protocol = 'http:';
      const { dispatcher: _guard, ...rest } = options as RequestInit & { dispatcher?: unknown };
      return fetch(target, rest);
    },
  };
}
