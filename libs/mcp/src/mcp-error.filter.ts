import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DependencyOutages, ERROR_CATALOGUE, ErrorCode, publicCodeOf, resolveError, startErrorResponse } from '#libs/common';

/** JSON-RPC error codes for HTTP-level failures of an MCP endpoint (-32000..-32099 is the server range). */
function jsonRpcCodeOf(code: ErrorCode, status: number): number {
  if (code === ErrorCode.VALIDATION_ERROR) return -32600;
  if (status === 401) return -32001;
  if (status === 402) return -32002;
  if (status === 403) return -32003;
  if (status === 429) return -32029;
  if (status >= 500) return -32603;
  return -32000;
}

/** The request's JSON-RPC id when it has a readable one; JSON-RPC 2.0 answers null otherwise. */
function requestIdOf(request: Request): string | number | null {
  const id = (request.body as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * The one filter of both MCP endpoints. A failure before JSON-RPC handling (credentials,
 * subscription, Origin, rate limit, malformed body) keeps its HTTP status and headers and
 * answers a JSON-RPC error an MCP client can read:
 * `{jsonrpc: '2.0', id, error: {code, message: 'REST_CODE: message', data: {code: REST_CODE, details?}}}`.
 * `id` echoes the request's (JSON-RPC 2.0 §5: null only when it cannot be read); the REST code
 * sits in `error.data.code` (JSON-RPC reserves `error.code` for an integer) and leads the
 * message, for clients that show only the message. Tool failures never come here: they are
 * results with isError (see McpToolRegistry).
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
    if (!startErrorResponse(resolved, exception, { request, response, outages: this.outages, logger: this.logger, status })) return;
    const code = publicCodeOf(resolved.code);
    const data: Record<string, unknown> = { code };
    if (resolved.details !== undefined) data.details = resolved.details;
    response.status(status).json({
      jsonrpc: '2.0',
      id: requestIdOf(request),
      error: { code: jsonRpcCodeOf(resolved.code, status), message: `${code}: ${resolved.message}`, data },
    });
  }
}
