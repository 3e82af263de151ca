import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AppException, ErrorCode, Principal, setPrincipal } from '#libs/common';
import { JwtStrategy } from './jwt.strategy.js';

/** What passport-jwt calls on the strategy when it is done with a request. */
interface StrategyOutcome {
  success(user: Principal | false): void;
  fail(): void;
  error(error: unknown): void;
  pass(): void;
  redirect(): void;
}

/**
 * JWT routes: 401 AUTH_REQUIRED for a missing, malformed, expired or revoked access token.
 *
 * Runs this app's own passport-jwt strategy instance (as passport itself would, on a fresh
 * object per request) instead of passport's process-wide registry: that registry keeps
 * only the strategy of the last app started in the process, so with two apps in one
 * process (`npm start`, tests) closing one would break the other's session check.
 */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  constructor(private readonly strategy: JwtStrategy) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    let principal: Principal | false;
    try {
      principal = await new Promise<Principal | false>((resolve, reject) => {
        const attempt = Object.create(this.strategy) as JwtStrategy & StrategyOutcome;
        attempt.success = (user) => resolve(user);
        attempt.fail = () => resolve(false);
        attempt.pass = () => resolve(false);
        attempt.redirect = () => resolve(false);
        attempt.error = (error) => reject(error);
        attempt.authenticate(request, {});
      });
    } catch (error) {
      if (error instanceof AppException) throw error;
      principal = false;
    }
    if (!principal) throw new AppException(ErrorCode.AUTH_REQUIRED, 'A valid access token is required');
    setPrincipal(request, principal);
    return true;
  }
}
