import type { Configuration } from 'oidc-provider';
import { guardedFetch } from '#libs/common';
import type { AppConfig } from '#libs/config';

/** How long a fetched client ID metadata document is reused, in seconds: its Cache-Control max-age, within these bounds. */
const CLIENT_METADATA_CACHE_SECONDS = { min: 60, max: 60 * 60 } as const;
/** The largest client ID metadata document accepted, in bytes (the draft's recommendation). */
const CLIENT_METADATA_MAX_BYTES = 5 * 1024;
/** How long a refused document (private address, failed fetch, invalid metadata) is refused without fetching it again, and how many refusals a process keeps. */
export const CLIENT_METADATA_REFUSAL = { seconds: 10 * 60, maxEntries: 10_000 } as const;

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Client ID metadata documents refused lately, per process: a refused URL is not fetched again on
 * every request for CLIENT_METADATA_REFUSAL.seconds (the oldest refusal goes first when full).
 */
export class ClientMetadataRefusals {
  private readonly until = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  refused(clientId: string): boolean {
    const until = this.until.get(clientId);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.until.delete(clientId);
    return false;
  }

  /** Records a refusal (not extended by the refusals it causes itself). */
  refuse(clientId: string): void {
    if (this.refused(clientId)) return;
    if (this.until.size >= CLIENT_METADATA_REFUSAL.maxEntries) this.until.delete(this.until.keys().next().value!);
    this.until.set(clientId, this.now() + CLIENT_METADATA_REFUSAL.seconds * 1000);
  }
}

/**
 * Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document-02, which the MCP
 * authorization spec recommends): a client whose client_id is an https URL needs no registration;
 * oidc-provider fetches the document at that URL and validates it (client_id equal to the URL,
 * no client secret, redirect_uris and the rest through the same schema as a registration, https
 * URLs), with a 2.5 s timeout, no redirects, a size limit and an in-process cache. The fetch is
 * ours (`guardedFetch`, #libs/common): the host name is resolved first and nothing is connected
 * unless every address is public. A URL refused lately is refused without a fetch (`refusals`).
 */
export function clientIdMetadataDocumentFeature(refusals: ClientMetadataRefusals): NonNullable<Configuration['features']>['clientIdMetadataDocument'] {
  return { enabled: true, ack: 'draft-02', cacheDuration: { ...CLIENT_METADATA_CACHE_SECONDS }, allowFetch: (_ctx, clientId) => !refusals.refused(clientId) };
}

/** The fetch the authorization server uses for client ID metadata documents (and nothing else: no other fetching feature is on). */
export function clientMetadataFetchOptions(config: AppConfig): Pick<Configuration, 'fetch' | 'fetchResponseBodyLimits'> {
  const allowLoopback = config.oauthClientMetadataLoopback;
  return {
    fetchResponseBodyLimits: { 'client_id metadata document': CLIENT_METADATA_MAX_BYTES },
    // oidc-provider's own dispatcher (which checks the address after connecting) is dropped: guardedFetch checks it before.
    fetch: (url, options) => {
      const { dispatcher: _checksAfterConnecting, ...init } = options as RequestInit & { dispatcher?: unknown };
      const target = new URL(url);
      // Test switch (refused in production): a document at a loopback https URL is read over plain http from the test's own server.
      if (allowLoopback && LOOPBACK_HOSTS.has(target.hostname)) target.protocol = 'http:';
      return guardedFetch(target, { method: init.method, headers: init.headers, signal: init.signal ?? undefined }, { allowLoopback });
    },
  };
}
