import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { JWK } from 'jose';
import type { default as Provider, Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { isDetailFor, oauthIssuer, type ProtectedResource } from '../oauth-resource/protected-resource.js';
import { OAUTH_ID_TOKEN_SIGNING_ALGS, OAUTH_SIGNING_ALG, OAuthSigningKeys } from '../oauth-resource/oauth-signing-keys.service.js';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { HTML_PAGE_HEADERS, queryOf } from '#libs/common';
import { ClientMetadataRefusals, clientIdMetadataDocumentFeature, clientMetadataFetchOptions } from './oauth-client-metadata-documents.js';
import { checkClientMetadata } from './oauth-client-rules.js';
import { OAUTH_ERROR_PAGE_CSP, renderOAuthErrorPage } from './oauth-pages.js';
import { OAuthRecordsRepository } from './oauth-records.repository.js';
import { OAUTH_RESOURCES, type OAuthResourceDeclaration } from './oauth-resources.js';
import { oauthStorageAdapter } from './oauth-storage.adapter.js';
import { loadOidcProvider, oidcErrors } from './oidc-provider-package.js';
import { UNUSED_ENDPOINTS_OFF } from './oauth-unused-endpoints.js';

/** Where the authorization server's endpoints live (the issuer is the service's public base URL). */
const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  end_session: '/oauth/logout',
  userinfo: '/oauth/userinfo',
  introspection: '/oauth/introspect',
} as const;

/** The sign-in and consent page of an authorization request. */
const interactionPath = (uid: string) => `/oauth/interaction/${uid}`;

/** Lifetimes, in seconds. */
export const OAUTH_TTL = {
  accessToken: 60 * 60,
  authorizationCode: 60,
  refreshToken: 30 * 24 * 60 * 60,
  grant: 365 * 24 * 60 * 60,
  interaction: 10 * 60,
  session: 24 * 60 * 60,
} as const;

/**
 * What one unauthenticated authorization request may make the server store (its interaction row
 * keeps every parameter): the whole query, each parameter, and `state`.
 */
const OAUTH_AUTHORIZE_LIMITS = { requestBytes: 4096, parameterChars: 2048, stateChars: 512 } as const;

/** Why an authorization request is too large to be stored, or undefined. */
function authorizeRequestProblem(request: IncomingMessage): string | undefined {
  const query = queryOf(request.url ?? '');
  if (Buffer.byteLength(query) > OAUTH_AUTHORIZE_LIMITS.requestBytes) return `the authorization request's parameters must be at most ${OAUTH_AUTHORIZE_LIMITS.requestBytes} bytes`;
  const length = Number(request.headers['content-length'] ?? 0);
  if (request.method === 'POST' && (request.headers['transfer-encoding'] !== undefined || !(length <= OAUTH_AUTHORIZE_LIMITS.requestBytes))) {
    return `the authorization request's parameters must be at most ${OAUTH_AUTHORIZE_LIMITS.requestBytes} bytes, with a Content-Length`;
  }
  for (const [name, value] of new URLSearchParams(query)) {
    if (name === 'state' && value.length > OAUTH_AUTHORIZE_LIMITS.stateChars) return `state must be at most ${OAUTH_AUTHORIZE_LIMITS.stateChars} characters`;
    if (value.length > OAUTH_AUTHORIZE_LIMITS.parameterChars) return `each parameter must be at most ${OAUTH_AUTHORIZE_LIMITS.parameterChars} characters`;
  }
  return undefined;
}

/** Scopes outside the resources' own: OpenID's, and offline_access (clients that ask for a refresh token by it). */
const PROTOCOL_SCOPES = ['openid', 'offline_access'];

/**
 * The OAuth 2.1 authorization server (oidc-provider, certified; nothing of the protocol written
 * here): authorization code with PKCE S256 only, refresh tokens rotated on every use (a reused
 * one revokes its whole grant), revocation (RFC 7009), dynamic client registration (RFC 7591),
 * resource indicators (RFC 8707) issuing JWT access tokens whose audience is the one resource,
 * rich authorization requests (RFC 9396) carrying what the user chose on the consent page (an app’s OAuthConsentChoice), storage in PostgreSQL, the signing key kept in the database.
 */
@Injectable()
export class OAuthProvider implements OnModuleInit {
  private readonly logger = new Logger('OAuth');
  private instance?: Provider;
  /**
   * The server's request handler, made on its first request (Koa composes its middleware on every
   * callback() call, so once per server; not at start, where it would load the server's routes into an idle process).
   */
  private handler?: ReturnType<Provider['callback']>;
  /** The kids of the signing keys the server holds, newest first. */
  private signingKids: string[] = [];
  private following?: Promise<void>;
  readonly resources: ProtectedResource[];
  private readonly issuer: string;
  /** The issuer's host and protocol, which handle() pins on every request. */
  private readonly issuerUrl: URL;
  /** Client ID metadata documents refused lately (kept across rebuilds of the server). */
  readonly metadataRefusals = new ClientMetadataRefusals();

  constructor(
    private readonly records: OAuthRecordsRepository,
    private readonly keys: OAuthSigningKeys,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(OAUTH_RESOURCES) declarations: OAuthResourceDeclaration[],
  ) {
    this.issuer = oauthIssuer(config);
    this.issuerUrl = new URL(this.issuer);
    // The first is the default of a client that names no resource.
    this.resources = declarations.map((declared) => declared.resource(config));
  }

  get provider(): Provider {
    if (!this.instance) throw new Error('The OAuth provider is not initialised yet');
    return this.instance;
  }

  /**
   * The signing keys exist from the first replica's start (each checks, one creates); the server is built
   * on the first request that needs it (handle, ready), not here: loading oidc-provider and Koa and
   * building the server would hold memory in every replica that never serves a sign-in.
   */
  async onModuleInit(): Promise<void> {
    await this.keys.privateJwks();
  }

  /** The server, built first with the stored signing keys if this replica has not needed it yet. */
  async ready(): Promise<Provider> {
    if (!this.instance) await this.followStoredSigningKeys();
    return this.provider;
  }

  /** For the key rotation timer: a server already built follows the stored keys; one not built yet will be built with them. */
  async followStoredSigningKeysIfBuilt(): Promise<void> {
    if (this.instance) await this.followStoredSigningKeys();
  }

  /** (Re)builds the server with these signing keys, newest first: per algorithm the first signs, all are published (see OAuthSigningKeyRotation). */
  async useSigningKeys(signingKeys: JWK[]): Promise<void> {
    const cookieSecret = await this.keys.cookieSecret();
    const { default: Provider } = await loadOidcProvider();
    const provider = new Provider(this.issuer, this.configuration(signingKeys, cookieSecret));
    // Trusts the forwarded host and protocol that handle() pins to the issuer's, whatever the client sent.
    provider.proxy = true;
    provider.on('server_error', (ctx: KoaContextWithOIDC, error: Error) => {
      keepErrorOnOurPage(ctx, error);
      this.logger.error({ err: { message: error.message, stack: error.stack } }, 'OAuth server error');
    });
    provider.on('authorization.error', keepErrorOnOurPage);
    this.recordMetadataRefusals(provider);
    provider.on('grant.revoked', (_ctx: unknown, grantId: string) => this.logger.log({ grantId }, 'OAuth grant revoked'));
    this.instance = provider;
    this.handler = undefined;
    this.signingKids = signingKeys.map((key) => key.kid!);
  }

  /**
   * Hands a request to the authorization server (it writes the whole response). oidc-provider
   * builds its endpoint URLs (metadata, redirects) from the request's host and protocol, so those
   * are pinned to the issuer's first: a forged Host or X-Forwarded-* header must never put another
   * origin into a document an agent (or a cache in front) keeps. The client address is the one
   * Express resolved under TRUST_PROXY.
   */
  async handle(request: IncomingMessage & { ip?: string; path?: string }, response: ServerResponse): Promise<void> {
    if (request.path === OAUTH_ROUTES.authorization) {
      const problem = authorizeRequestProblem(request);
      if (problem) {
        response.writeHead(400, { ...HTML_PAGE_HEADERS, 'Content-Security-Policy': OAUTH_ERROR_PAGE_CSP, Connection: 'close' });
        response.end(renderOAuthErrorPage('invalid_request', problem));
        return;
      }
    }
    const { host, protocol } = this.issuerUrl;
    request.headers.host = host;
    request.headers['x-forwarded-host'] = host;
    request.headers['x-forwarded-proto'] = protocol.slice(0, -1);
    request.headers['x-forwarded-for'] = request.ip ?? request.socket.remoteAddress ?? '';
    await this.followStoredSigningKeys();
    this.handler ??= this.provider.callback();
    return this.handler(request, response) as Promise<void>;
  }

  /**
   * Rebuilds the server when the stored signing keys are not the ones it holds: one added by
   * another replica, or one deleted by hand (a compromised key), which this replica then stops
   * signing with and publishing from its next request on. One read of the kids per request to the
   * authorization server (a handful per sign-in); requests arriving together share one rebuild.
   */
  async followStoredSigningKeys(): Promise<void> {
    const stored = await this.keys.storedKeyIds();
    if (stored.length > 0 && stored.join() === this.signingKids.join()) return;
    this.following ??= this.keys
      .privateJwks()
      .then((jwks) => this.useSigningKeys(jwks))
      .finally(() => {
        this.following = undefined;
      });
    await this.following;
  }

  /**
   * A URL client id whose document was refused (address, fetch, metadata) is refused again without
   * a fetch for a while (allowFetch of clientIdMetadataDocumentFeature reads these).
   */
  private recordMetadataRefusals(provider: Provider): void {
    const clients = provider.Client as unknown as { find(id: string, ...rest: unknown[]): Promise<unknown> };
    const find = clients.find.bind(clients);
    clients.find = async (id, ...rest) => {
      try {
        return await find(id, ...rest);
      } catch (error) {
        if (typeof id === 'string' && id.startsWith('https://') && error instanceof oidcErrors().OIDCProviderError) this.metadataRefusals.refuse(id);
        throw error;
      }
    };
  }

  /** The resource of an indicator, if it is one of ours. */
  resourceFor(indicator: string): ProtectedResource | undefined {
    return this.resources.find((candidate) => candidate.resource === indicator);
  }

  /** Every scope a resource offers. */
  resourceScopes(): string[] {
    return [...new Set(this.resources.flatMap((resource) => resource.scopes))];
  }

  private configuration(signingKeys: JWK[], cookieSecret: string): Configuration {
    const resources = this.resources;
    return {
      adapter: oauthStorageAdapter(this.records),
      jwks: { keys: signingKeys as never[] },
      cookies: { keys: [cookieSecret], long: { signed: true }, short: { signed: true } },
      findAccount: async (_ctx, sub) => ((await this.records.accountExists(sub)) ? { accountId: sub, claims: () => ({ sub }) } : undefined),
      scopes: [...PROTOCOL_SCOPES, ...this.resourceScopes()],
      claims: { openid: ['sub'] },
      responseTypes: ['code'],
      pkce: { required: () => true },
      // ID tokens: RS256 unless the client registered id_token_signed_response_alg ES256 (OpenID Connect's default, and Discovery requires it offered).
      clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', id_token_signed_response_alg: OAUTH_ID_TOKEN_SIGNING_ALGS[0] },
      enabledJWA: { idTokenSigningAlgValues: OAUTH_ID_TOKEN_SIGNING_ALGS },
      routes: OAUTH_ROUTES,
      ...clientMetadataFetchOptions(this.config),
      interactions: { url: (_ctx, interaction) => interactionPath(interaction.uid) },
      // Not stored for its own sake: its validator is oidc-provider's hook that sees a client's whole metadata (registration, document, stored client).
      extraClientMetadata: {
        properties: ['software_id'],
        validator: (_ctx, key, _value, metadata) => {
          if (key === 'software_id') checkClientMetadata(metadata as Record<string, unknown>);
        },
      },
      features: {
        ...UNUSED_ENDPOINTS_OFF,
        clientIdMetadataDocument: clientIdMetadataDocumentFeature(this.metadataRefusals),
        devInteractions: { enabled: false },
        registration: { enabled: true },
        // A client revokes only its own tokens (RFC 7009 §2.1); another client's token is left alone, silently.
        revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
        userinfo: { enabled: false },
        introspection: { enabled: false },
        resourceIndicators: {
          enabled: true,
          // A client that names no resource gets a token for the first resource the app declared.
          defaultResource: async (_ctx, _client, oneOf) => oneOf ?? resources[0].resource,
          useGrantedResource: async () => true,
          getResourceServerInfo: async (_ctx, indicator) => {
            const resource = resources.find((candidate) => candidate.resource === indicator);
            if (!resource) throw new (oidcErrors().InvalidTarget)(`unknown resource ${indicator}`);
            return {
              scope: resource.scopes.join(' '),
              audience: resource.resource,
              accessTokenTTL: OAUTH_TTL.accessToken,
              accessTokenFormat: 'jwt',
              jwt: { sign: { alg: OAUTH_SIGNING_ALG } },
            };
          },
        },
        richAuthorizationRequests: {
          enabled: true,
          // No type a client may ask for: the consent page adds the detail of the user’s choice to the grant (oauth-interaction.service.ts).
          types: {},
          authorizationDetailsForGrantSource: async (ctx) => ctx.oidc.entities.Grant?.rar,
          // The grant as it stands now (a later consent may have changed the site), only the details for this token's resource.
          authorizationDetailsForAccessToken: async (ctx, token, source) => {
            const audience = token.resourceServer?.audience;
            const details = ctx.oidc.entities.Grant?.rar ?? source?.rar ?? [];
            return audience ? details.filter((detail) => isDetailFor(detail, audience)) : [];
          },
          authorizationDetailsForIntrospection: async () => undefined,
        },
      },
      // The grant id travels in the access token, so a resource can check the grant still stands (revocation at once).
      extraTokenClaims: async (_ctx, token) => ('grantId' in token ? { gid: token.grantId } : undefined),
      issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      rotateRefreshToken: true,
      // Tokens belong to the grant, not to the browser session of the sign-in page.
      expiresWithSession: async () => false,
      ttl: {
        AccessToken: OAUTH_TTL.accessToken,
        AuthorizationCode: OAUTH_TTL.authorizationCode,
        RefreshToken: OAUTH_TTL.refreshToken,
        Grant: OAUTH_TTL.grant,
        Interaction: OAUTH_TTL.interaction,
        Session: OAUTH_TTL.session,
      },
      renderError: async (ctx: KoaContextWithOIDC, out, error) => {
        // An error kept on our page (keepErrorOnOurPage) may come from a step that had set a redirect status.
        const status = (error as { statusCode?: number }).statusCode;
        ctx.status = status !== undefined && status >= 400 ? status : 400;
        ctx.type = 'html';
        ctx.set('Content-Security-Policy', OAUTH_ERROR_PAGE_CSP);
        ctx.body = renderOAuthErrorPage(out.error, out.error_description);
      },
    };
  }
}

/**
 * Not an open redirector (RFC 9700 §4.11.2): an error of the authorization endpoint goes back to
 * the client's redirect_uri only when a signed-in user of this browser has already consented to
 * that client (a grant in the browser's session); otherwise it is shown on our error page. After
 * our sign-in page (the resume route) the user has seen where the app sends them: redirected.
 */
function keepErrorOnOurPage(ctx: KoaContextWithOIDC, error: Error & { allow_redirect?: boolean }): void {
  if (ctx.oidc?.route !== 'authorization') return;
  const clientId = ctx.oidc.client?.clientId;
  const session = ctx.oidc.entities.Session as { accountId?: string; authorizations?: Record<string, { grantId?: string }> } | undefined;
  const consented = clientId !== undefined && session?.accountId !== undefined && session.authorizations?.[clientId]?.grantId !== undefined;
  if (!consented) error.allow_redirect = false;
}
