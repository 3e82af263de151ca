import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DependencyOutages, ERROR_CATALOGUE, ErrorCode, publicCodeOf, resolveError } from '#libs/common';

/** JSON-RPC error codes for HTTP-level failures of the MCP endpoint (-32000..-32099 is the server range). */
export function jsonRpcCodeOf(code: ErrorCode, status: number): number {
  if (code === ErrorCode.VALIDATION_ERROR) return -32600;
  if (status === 401) return -32001;
  if (status === 402) return -32002;
  if (status === 403) return -32003;
  if (status === 429) return -32029;
  if (status >= 500) return -32603;
  return -32000;
}

/**
 * Failures of the MCP POST before JSON-RPC handling (credentials, subscription, Origin, rate
 * limit, malformed body) keep their HTTP status but answer with a JSON-RPC error object, as an
 * MCP client expects: `{jsonrpc: '2.0', id: null, error: {code, message, data: {code: <REST code>, details?}}}`.
 * The REST code sits in `error.data.code` (JSON-RPC reserves `error.code` for an integer).
 */
@Catch()
export class McpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('McpErrors');

  constructor(private readonly outages: DependencyOutages) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<Request>();
    const response = host.switchToHttp().getResponse<Response>();
    const resolved = resolveError(exception, request);
    const status = ERROR_CATALOGUE[resolved.code].status;
    if (resolved.dependency) {
      this.outages.refused(resolved.dependency, exception);
    } else if (resolved.unexpected) {
      const err = exception as Error;
      this.logger.error({ err: { type: err?.name, message: err?.message, stack: err?.stack }, requestId: (request as any).id }, 'MCP request failed unexpectedly');
    }
    if (response.headersSent) {
      response.end();
      return;
    }
    for (const [name, value] of Object.entries(resolved.headers ?? {})) response.setHeader(name, value);
    const data: Record<string, unknown> = { code: publicCodeOf(resolved.code) };
    if (resolved.details !== undefined) data.details = resolved.details;
    response.status(status).json({ jsonrpc: '2.0', id: null, error: { code: jsonRpcCodeOf(resolved.code, status), message: resolved.message, data } });
  }
}
