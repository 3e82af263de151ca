import type { Request } from 'express';
import { AppException, ErrorCode } from '#libs/common';

/**
 * DNS-rebinding protection (MCP transport spec): a browser-originated request must come
 * from an origin we serve or explicitly allow. Requests without Origin (agents, curl) pass.
 */
export function assertAllowedMcpOrigin(request: Request, allowedOrigins: string[]): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  if (!allowedOrigins.includes(origin)) {
    throw new AppException(ErrorCode.FORBIDDEN, 'Requests from this Origin are not allowed on the MCP endpoint');
  }
}

/** The service's own public origin plus explicitly configured CORS origins ('*' allows nothing extra). */
export function mcpAllowedOrigins(publicBaseUrl: string, corsOrigins: string[] | '*'): string[] {
  const own = new URL(publicBaseUrl).origin;
  return [own, ...(corsOrigins === '*' ? [] : corsOrigins)];
}
