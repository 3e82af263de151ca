import { Injectable } from '@nestjs/common';
import type { ZodRawShape } from 'zod';
import type { FeedbackTokenPrincipal } from '../token-auth/feedback-token.authenticator.js';

/** Which export tokens may call a tool: 'read' = sk_, 'write' = wk_, 'portfolio' = ok_. */
export type McpToolScope = 'read' | 'write' | 'portfolio';

/**
 * One tool of the feedback MCP server. Feature modules register theirs (the Questions module
 * adds the question-batch tools) with FeedbackMcpToolRegistry.register in onModuleInit.
 */
export interface FeedbackMcpTool {
  name: string;
  title?: string;
  description: string;
  /** Zod shape of the arguments; the SDK validates calls against it. */
  inputSchema: ZodRawShape;
  /** Token kinds allowed to call it; any other token gets an isError result with INVALID_TOKEN. */
  scopes: readonly McpToolScope[];
  /** True when the tool changes nothing (announced as readOnlyHint). */
  readOnly: boolean;
  /**
   * The tool body: call the same service the REST route calls and return the same `data`.
   * Throw AppException for failures; they become `isError` results with the REST code.
   */
  run(principal: FeedbackTokenPrincipal, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** The tools of POST /api/v1/mcp; each request builds a fresh server from this list. */
@Injectable()
export class FeedbackMcpToolRegistry {
  private readonly tools = new Map<string, FeedbackMcpTool>();

  register(tool: FeedbackMcpTool): void {
    if (this.tools.has(tool.name)) throw new Error(`MCP tool ${tool.name} is registered twice`);
    this.tools.set(tool.name, tool);
  }

  list(): FeedbackMcpTool[] {
    return [...this.tools.values()];
  }
}

/** The scope a principal holds, to compare with a tool's scopes. */
export function scopeOf(principal: FeedbackTokenPrincipal): McpToolScope {
  return principal.kind === 'portfolio' ? 'portfolio' : principal.scope;
}
