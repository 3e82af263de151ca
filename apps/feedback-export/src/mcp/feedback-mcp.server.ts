import { Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AppException, ErrorCode } from '#libs/common';
import { McpToolMetrics, runTool, SHARED_JSON_SCHEMA_VALIDATOR, toolError } from '#libs/mcp';
import type { FeedbackTokenPrincipal } from '../token-auth/feedback-token.authenticator.js';
import { FeedbackMcpToolRegistry, scopeOf, type FeedbackMcpTool } from './feedback-mcp-tool.registry.js';

const TOKEN_NAMES: Record<string, string> = { read: 'sk_', write: 'wk_', portfolio: 'ok_' };

function scopeError(tool: FeedbackMcpTool): AppException {
  const allowed = tool.scopes.map((scope) => TOKEN_NAMES[scope]).join(' or ');
  return new AppException(ErrorCode.INVALID_TOKEN, `The tool ${tool.name} needs a ${allowed} token`);
}

/** Builds the per-request MCP server for an authenticated token: every registered tool, scope-checked. */
@Injectable()
export class FeedbackMcpServerFactory {
  constructor(
    private readonly registry: FeedbackMcpToolRegistry,
    private readonly toolMetrics: McpToolMetrics,
  ) {}

  create(principal: FeedbackTokenPrincipal): McpServer {
    const server = new McpServer({ name: 'feedback-export', version: '1.0.0' }, { capabilities: { tools: {} }, jsonSchemaValidator: SHARED_JSON_SCHEMA_VALIDATOR });
    for (const tool of this.registry.list()) {
      const scopes = tool.scopes.map((scope) => TOKEN_NAMES[scope]).join(', ');
      server.registerTool(
        tool.name,
        {
          title: tool.title,
          description: `${tool.description} Tokens: ${scopes}.`,
          inputSchema: tool.inputSchema,
          annotations: { readOnlyHint: tool.readOnly, destructiveHint: false, openWorldHint: false },
        },
        (async (args: Record<string, unknown>) => {
          const recordOutcome = this.toolMetrics.listenerFor(tool.name);
          if (!tool.scopes.includes(scopeOf(principal))) {
            recordOutcome(ErrorCode.INVALID_TOKEN);
            return toolError(scopeError(tool));
          }
          return runTool(() => tool.run(principal, args ?? {}), recordOutcome);
        }) as any,
      );
    }
    return server;
  }
}
