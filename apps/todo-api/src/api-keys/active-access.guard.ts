import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AppException, ErrorCode, getPrincipal } from '#libs/common';
import { ApiKeyAccessRepository } from '../api-access/api-key-access.repository.js';

/**
 * API-key management needs API access (paid active/trialing subscription or lifetime beta):
 * 402 SUBSCRIPTION_REQUIRED otherwise. Runs after the route's JWT guard.
 */
@Injectable()
export class ActiveAccessGuard implements CanActivate {
  constructor(private readonly access: ApiKeyAccessRepository) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const principal = getPrincipal(context.switchToHttp().getRequest());
    if (principal?.kind !== 'user') throw new AppException(ErrorCode.AUTH_REQUIRED, 'A valid access token is required');
    if (!(await this.access.userHasApiAccess(principal.userId))) {
      throw new AppException(ErrorCode.SUBSCRIPTION_REQUIRED, 'API keys need an active API subscription or lifetime beta access');
    }
    return true;
  }
}
