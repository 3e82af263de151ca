import type { CanActivate, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { looksLikeJwt, presentedCredential, setPrincipal, type Principal, type PrincipalOf } from '#libs/common';
import { OAuthAccessTokenVerifier } from './oauth-access-token.verifier.js';
import { withBearerChallenge, type ProtectedResource } from './protected-resource.js';

/** A verified OAuth access token: its principal, and its RFC 9396 `authorization_details` as signed. */
export interface VerifiedOAuthAccess {
  principal: PrincipalOf<'oauth'>;
  authorizationDetails: unknown;
}

/**
 * The guard of an app's endpoint that is an OAuth protected resource (each app's MCP endpoint):
 * a JWT-shaped credential is an OAuth access token, which must be issued for this resource; any
 * other credential is the app's own (an API key, an export token), checked by `appCredential`.
 * Every 401 carries the resource's `WWW-Authenticate` challenge, so an agent can find the
 * resource's metadata and sign in. The app says what a verified token becomes (`principalOf`).
 */
export abstract class OAuthResourceGuard implements CanActivate {
  protected constructor(
    protected readonly resource: ProtectedResource,
    private readonly oauthTokens: OAuthAccessTokenVerifier,
    /** The app's own key header, read before the bearer header (presentedCredential); none: the bearer header alone. */
    private readonly keyHeader?: string,
  ) {}

  /** The app's own credential (whatever is not a JWT, or none), checked by the app's guard for it. */
  protected abstract appCredential(context: ExecutionContext): Promise<boolean>;

  /** What a token verified for this resource lets its caller do here (its rules may refuse it). */
  protected abstract principalOf(verified: VerifiedOAuthAccess): Promise<Principal> | Principal;

  async canActivate(context: ExecutionContext): Promise<boolean> {
    try {
      const request = context.switchToHttp().getRequest<Request>();
      const credential = presentedCredential(request, this.keyHeader);
      if (!credential || !looksLikeJwt(credential)) return await this.appCredential(context);
      setPrincipal(request, await this.principalOf(await this.oauthTokens.verifyWithDetails(credential, this.resource)));
      return true;
    } catch (error) {
      throw withBearerChallenge(error, this.resource);
    }
  }
}
