import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AppException, ErrorCode, getPrincipal } from '#libs/common';
import { ApiAccessService } from '../api-access/api-access.service.js';

/**
 * API-key management needs API access (paid active/trialing subscription or lifetime beta):
 * 402 SUBSCRIPTION_REQUIRED otherwise. Runs after the route's JWT guard.
 */
@Injectable()
export class ActiveAccessGuard implements CanActivate {
  constructor(private readonly access: ApiAccessService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const principal = getPrincipal(context.switchToHttp().getRequest());
    if (principal?.kind !== 'user') throw new AppException(ErrorCode.AUTH_REQUIRED, 'A valid access token is required');
    await this.access.requireApiAccess(principal.userId, 'API keys need an active API subscription or lifetime beta access');
    return true;
  }
}
