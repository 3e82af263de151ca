import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DependencyOutages, ERROR_CATALOGUE, ErrorCode, publicCodeOf, resolveError } from '#libs/common';

/** JSON-RPC server-defined error codes for failures before any method runs. */
const JSON_RPC_CODE: Partial<Record<string, number>> = { 401: -32001, 403: -32003, 429: -32029 };

/**
 * On the MCP endpoint a failure before the transport (token, scope, Origin, rate limit) is
 * answered with its HTTP status and headers, and a JSON-RPC error body an MCP client can read:
 * `{jsonrpc: '2.0', id, error: {code, message: 'INVALID_TOKEN: …', data: {code}}}`.
 */
@Catch()
export class McpHttpErrorFilter implements ExceptionFilter {
  constructor(private readonly outages: DependencyOutages) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<Request>();
    const response = host.switchToHttp().getResponse<Response>();
    const resolved = resolveError(exception, request);
    const status = ERROR_CATALOGUE[resolved.code].status;
    if (resolved.dependency) this.outages.refused(resolved.dependency, exception);
    if (response.headersSent) {
      response.end();
      return;
    }
    const code = publicCodeOf(resolved.code);
    const bodyId = (request.body as { id?: unknown } | undefined)?.id;
    const id = typeof bodyId === 'string' || typeof bodyId === 'number' ? bodyId : null;
    for (const [name, value] of Object.entries(resolved.headers ?? {})) response.setHeader(name, value);
    const message = resolved.code === ErrorCode.INTERNAL_ERROR ? 'An unexpected error occurred' : resolved.message;
    response.status(status).json({
      jsonrpc: '2.0',
      id,
      error: { code: JSON_RPC_CODE[status] ?? -32000, message: `${code}: ${message}`, data: { code } },
    });
  }
}
