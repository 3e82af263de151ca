import { CanActivate, ExecutionContext, Inject, Injectable, Logger, Type } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import { AppException } from '../errors/app.exception.js';
import { ErrorCode } from '../errors/error-code.enum.js';
import { AUTH_SCHEME, AuthScheme } from './auth-scheme.decorator.js';

/** Each app maps the schemes it serves to the guard that checks them. */
export const AUTH_SCHEME_GUARDS = Symbol('AUTH_SCHEME_GUARDS');
export type AuthSchemeGuards = Partial<Record<Exclude<AuthScheme, 'public'>, Type<CanActivate>>>;

/**
 * The global guard: deny by default. It reads the route's scheme and delegates to
 * that scheme's guard; a route with no scheme, or one this app does not serve, is refused.
 */
@Injectable()
export class AuthSchemeGuard implements CanActivate {
  private readonly logger = new Logger(AuthSchemeGuard.name);

  constructor(
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
    @Inject(AUTH_SCHEME_GUARDS) private readonly guards: AuthSchemeGuards,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return false;
    const scheme = this.reflector.getAllAndOverride<AuthScheme | undefined>(AUTH_SCHEME, [context.getHandler(), context.getClass()]);
    if (scheme === 'public') return true;
    const guardType = scheme ? this.guards[scheme] : undefined;
    if (!guardType) {
      this.logger.error(`Route ${context.getClass().name}.${context.getHandler().name} has no usable auth scheme (${scheme ?? 'none'})`);
      throw new AppException(ErrorCode.AUTH_REQUIRED, 'Authentication is required');
    }
    const guard = this.moduleRef.get(guardType, { strict: false });
    return (await guard.canActivate(context)) as boolean;
  }
}
