import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';

/** Lifetime of an access token (decisions.md: 15 minutes). */
const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;

export interface AccessTokenClaims {
  sub: string;
  sid: string;
  typ: 'access';
}

/** Signs access tokens: HS256, user id in `sub`, session id in `sid`. */
@Injectable()
export class AccessTokenService {
  constructor(private readonly jwt: JwtService) {}

  sign(userId: string, sessionId: string): string {
    const claims: AccessTokenClaims = { sub: userId, sid: sessionId, typ: 'access' };
    return this.jwt.sign(claims, { algorithm: 'HS256', expiresIn: ACCESS_TOKEN_TTL_SECONDS });
  }
}
