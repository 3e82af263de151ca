import { ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { AppException, ErrorCode, Principal, setPrincipal } from '#libs/common';

/** JWT routes: 401 AUTH_REQUIRED for a missing, malformed, expired or revoked access token. */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  override handleRequest<T = Principal>(error: unknown, principal: T | false, _info: unknown, context: ExecutionContext): T {
    if (error instanceof AppException) throw error;
    if (error || !principal) throw new AppException(ErrorCode.AUTH_REQUIRED, 'A valid access token is required');
    setPrincipal(context.switchToHttp().getRequest(), principal as unknown as Principal);
    return principal;
  }
}
