import { Logger } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppException, ErrorCode, publicCodeOf } from '#libs/common';
import { classifyDatabaseError } from '#libs/common';

const logger = new Logger('McpTools');

/** A successful tool result: the data as structuredContent plus the same JSON as a text block. */
export function toolResult(data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
}

/**
 * A failed tool result (`isError: true`) carrying the REST error code, so an agent sees the
 * same codes as a REST client. Unexpected errors give INTERNAL_ERROR and are logged, never shown.
 */
export function toolError(error: unknown): CallToolResult {
  return toolErrorWithCode(error).result;
}

/** The failed tool result and the public code it carries. */
function toolErrorWithCode(error: unknown): { result: CallToolResult; code: string } {
  let code: string;
  let message: string;
  let details: unknown;
  if (error instanceof AppException) {
    code = publicCodeOf(error.code);
    message = error.message;
    details = error.details;
  } else {
    const database = classifyDatabaseError(error);
    if (database) {
      code = database.code;
      message = database.message;
    } else {
      logger.error({ err: { message: (error as Error)?.message, stack: (error as Error)?.stack } }, 'MCP tool failed unexpectedly');
      code = ErrorCode.INTERNAL_ERROR;
      message = 'An unexpected error occurred';
    }
  }
  const body = details === undefined ? { error: { code, message } } : { error: { code, message, details } };
  return { result: { isError: true, content: [{ type: 'text', text: `${code}: ${message}\n${JSON.stringify(body)}` }] }, code };
}

/** Told how each tool call ended: `ok`, or the public error code of its isError result. */
export type ToolOutcomeListener = (outcome: string, error?: unknown) => void;

/** Runs a tool body and turns its outcome into a tool result. */
export async function runTool(body: () => Promise<Record<string, unknown>>, onOutcome?: ToolOutcomeListener): Promise<CallToolResult> {
  try {
    const result = toolResult(await body());
    onOutcome?.('ok');
    return result;
  } catch (error) {
    const { result, code } = toolErrorWithCode(error);
    onOutcome?.(code, error);
    return result;
  }
}
