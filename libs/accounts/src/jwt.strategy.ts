import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { isUuid, type Principal } from '#libs/common';
import type { AccessTokenClaims } from './access-token.service.js';
import { SessionAccessRepository } from './session-access.repository.js';

/**
 * Access-token verification shared by both apps: HS256 only (`alg: none` and every other
 * algorithm refused), `exp` enforced, and the session must still be live, so revoking a
 * session ends its access tokens at once.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly sessions: SessionAccessRepository,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: config.jwtSecret,
      algorithms: ['HS256'],
      ignoreExpiration: false,
    });
  }

  async validate(claims: Partial<AccessTokenClaims>): Promise<Principal | false> {
    if (claims.typ !== 'access' || typeof claims.sub !== 'string' || typeof claims.sid !== 'string') return false;
    if (!isUuid(claims.sub) || !isUuid(claims.sid)) return false;
    if (!(await this.sessions.isSessionLive(claims.sub, claims.sid))) return false;
    return { kind: 'user', userId: claims.sub, sessionId: claims.sid };
  }
}
