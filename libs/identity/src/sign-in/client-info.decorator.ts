import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { ClientInfo } from '../sessions/sessions.service.js';

/** Longest User-Agent kept on a session. */
const USER_AGENT_MAX = 512;

/**
 * The caller's address and user agent. The address is Express's `request.ip`, which
 * honours X-Forwarded-For only when TRUST_PROXY declares the proxy in front of us.
 */
export const Client = createParamDecorator((_data: unknown, ctx: ExecutionContext): ClientInfo => {
  const request = ctx.switchToHttp().getRequest<Request>();
  const userAgent = request.headers['user-agent'];
  return {
    ipAddress: request.ip ?? null,
    userAgent: typeof userAgent === 'string' && userAgent !== '' ? userAgent.slice(0, USER_AGENT_MAX) : null,
  };
});

/** The optional Idempotency-Key header (documented with @ApiHeader; read here so it is not listed twice). */
export const IdempotencyKey = createParamDecorator((_data: unknown, ctx: ExecutionContext): string | undefined => {
  const value = ctx.switchToHttp().getRequest<Request>().headers['idempotency-key'];
  return typeof value === 'string' ? value : undefined;
});
