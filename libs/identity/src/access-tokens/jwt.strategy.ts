import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import passport from 'passport';
import { ExtractJwt, Strategy, type StrategyOptionsWithoutRequest, type VerifyCallback } from 'passport-jwt';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { isUuid, type PrincipalOf } from '#libs/common';
import type { AccessTokenClaims } from './access-token.service.js';
import { SessionAccessRepository } from './session-access.repository.js';

/** What the strategy hands passport with an accepted token (passport's `info`): when the token stops working by itself. */
export interface AccessTokenInfo {
  expiresAt: Date;
}

let strategiesStarted = 0;

/**
 * passport-jwt's strategy under a name of its own per app instance. passport keeps one
 * strategy per name for the whole process, and each app's strategy checks sessions on that
 * app's database: with two apps in one process (`npm start`; tests start replicas), a shared
 * name would leave every app on the last one started, broken once that one closes.
 */
class AppInstanceJwtStrategy extends Strategy {
  constructor(options: StrategyOptionsWithoutRequest, verify: VerifyCallback) {
    super(options, verify);
    this.name = `jwt#${++strategiesStarted}`;
  }
}

const tokensFoundElsewhere = new WeakMap<Request, string>();

/**
 * For a guard that finds the access token somewhere other than the bearer header (the realtime
 * stream's `access_token` query parameter, for EventSource): the strategy verifies this token
 * for the request instead. Other routes take the bearer header only.
 */
export function presentAccessToken(request: Request, token: string): void {
  tokensFoundElsewhere.set(request, token);
}

/**
 * The one access-token verifier, used by both apps through `JwtAuthGuard`: HS256 only
 * (`alg: none` and every other algorithm refused), `exp` enforced, and the session must still
 * be live, so revoking a session ends its access tokens at once.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(AppInstanceJwtStrategy) implements OnApplicationShutdown {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly sessions: SessionAccessRepository,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromExtractors([(request: Request) => tokensFoundElsewhere.get(request) ?? null, ExtractJwt.fromAuthHeaderAsBearerToken()]),
      secretOrKey: config.jwtSecret,
      algorithms: ['HS256'],
      ignoreExpiration: false,
    });
  }

  /** A refused token answers false (passport's `fail`); a session lookup that cannot run throws (an outage, not a verdict). */
  async validate(claims: Partial<AccessTokenClaims> & { exp?: number }): Promise<[PrincipalOf<'user'>, AccessTokenInfo] | false> {
    if (claims.typ !== 'access' || typeof claims.sub !== 'string' || typeof claims.sid !== 'string' || typeof claims.exp !== 'number') return false;
    if (!isUuid(claims.sub) || !isUuid(claims.sid)) return false;
    if (!(await this.sessions.isSessionLive(claims.sub, claims.sid))) return false;
    return [{ kind: 'user', userId: claims.sub, sessionId: claims.sid }, { expiresAt: new Date(claims.exp * 1000) }];
  }

  /** The app is closed: its name leaves passport's registry (no closed app's strategy stays reachable). */
  onApplicationShutdown(): void {
    passport.unuse(this.name);
  }
}
