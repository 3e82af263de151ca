import { createHash, timingSafeEqual } from 'node:crypto';
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { AppException, ErrorCode, setPrincipal } from '#libs/common';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** `X-Admin-API-Key`, compared in constant time. Without ADMIN_API_KEY configured, always 401. */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  private readonly expected?: Buffer;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.expected = config.adminApiKey ? digest(config.adminApiKey) : undefined;
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    const presented = request.headers['x-admin-api-key'];
    if (!this.expected || typeof presented !== 'string' || !timingSafeEqual(digest(presented), this.expected)) {
      throw new AppException(ErrorCode.ADMIN_AUTH_REQUIRED, 'A valid admin key is required (X-Admin-API-Key)');
    }
    setPrincipal(request, { kind: 'admin' });
    return true;
  }
}
