import { Injectable } from '@nestjs/common';
import { errors, jwtVerify } from 'jose';
import { AppException, ErrorCode, isUuid, type PrincipalOf } from '#libs/common';
import { OAuthAccessRepository } from './oauth-access.repository.js';
import { OAUTH_SIGNING_ALG, OAuthSigningKeys } from './oauth-signing-keys.service.js';
import type { ProtectedResource } from './protected-resource.js';

function refused(message: string): AppException {
  return new AppException(ErrorCode.INVALID_TOKEN, message);
}

/**
 * Checks an OAuth access token for one protected resource: signed by our authorization server
 * (jose, against its key set), issued for this resource (`aud`, RFC 8707), not expired, and its
 * grant and signing key still standing (revoking a connected app, reusing a rotated refresh token,
 * or deleting a signing key ends every token of the grant, or of the key, at once, on every replica).
 */
@Injectable()
export class OAuthAccessTokenVerifier {
  constructor(
    private readonly keys: OAuthSigningKeys,
    private readonly repository: OAuthAccessRepository,
  ) {}

  async verify(token: string, resource: ProtectedResource): Promise<PrincipalOf<'oauth'>> {
    return (await this.verifyWithDetails(token, resource)).principal;
  }

  /** verify, plus the token's RFC 9396 `authorization_details` (the feedback MCP's site choice), as signed. */
  async verifyWithDetails(token: string, resource: ProtectedResource): Promise<{ principal: PrincipalOf<'oauth'>; authorizationDetails: unknown }> {
    let payload: Record<string, unknown>;
    let kid: unknown;
    try {
      ({ payload, protectedHeader: { kid } } = await jwtVerify(token, await this.keys.verificationKeys(), {
        issuer: resource.authorizationServer,
        audience: resource.resource,
        algorithms: [OAUTH_SIGNING_ALG],
        typ: 'at+jwt',
        requiredClaims: ['sub', 'client_id', 'scope', 'gid', 'exp'],
      }));
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw refused('The access token has expired: refresh it or sign in again');
      if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'aud') throw refused('The access token was not issued for this resource');
      if (error instanceof errors.JOSEError) throw refused('The access token is invalid');
      throw error;
    }
    const { sub, client_id: clientId, gid, scope } = payload;
    if (!isUuid(sub) || typeof clientId !== 'string' || typeof gid !== 'string' || typeof scope !== 'string' || typeof kid !== 'string') {
      throw refused('The access token is invalid');
    }
    if (!(await this.repository.isGrantAndKeyLive(sub, gid, kid))) throw refused('The access token was revoked: sign in again');
    return {
      principal: { kind: 'oauth', userId: sub, clientId, grantId: gid, scopes: scope.split(' ').filter(Boolean) },
      authorizationDetails: payload.authorization_details,
    };
  }
}
