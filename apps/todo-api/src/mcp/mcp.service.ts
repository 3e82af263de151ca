import { Inject, Injectable, type Type } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ErrorCode as McpErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Request, Response } from 'express';
import { createValidationPipe } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { assertAllowedMcpOrigin, mcpAllowedOrigins, McpToolMetrics, runTool, serveStatelessMcp, SHARED_JSON_SCHEMA_VALIDATOR } from '#libs/mcp';
import { ListTodosQuery } from '../todos/dto/list-todos.query.js';
import { CreateTodoDto, UpdateTodoDto } from '../todos/dto/todo-input.dto.js';
import { TodosService } from '../todos/todos.service.js';
import { IdempotencyArgs, TodoIdArgs } from './dto/tool-args.dto.js';
import { TODO_TOOLS, type TodoToolName } from './todo-tools.js';
import { assertMayCallTodoTool, mayCallTodoTool, type TodoMcpPrincipal } from '../oauth/todo-mcp-scopes.js';

const SERVER_INFO = { name: 'todo-api', title: 'Todo API', version: '1.0.0' };
const INSTRUCTIONS =
  "Tools to read and change the user's todos. Priorities run from 1 (urgent) to 4 (low). " +
  'Errors come back as tool results with isError and a code such as NOT_FOUND or VALIDATION_ERROR.';

function pick(args: Record<string, unknown>, names: string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const name of names) if (name in args) picked[name] = args[name];
  return picked;
}

/**
 * The agent endpoint: stateless streamable HTTP, one server per request. Tools call the same
 * TodosService as the REST routes, after the same validation (the global ValidationPipe on the
 * same DTO classes), so rules and error codes are identical.
 */
@Injectable()
export class McpService {
  private readonly allowedOrigins: string[];
  private readonly validation = createValidationPipe();

  constructor(
    private readonly todos: TodosService,
    private readonly toolMetrics: McpToolMetrics,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.allowedOrigins = mcpAllowedOrigins(config.publicBaseUrl, config.corsOrigins);
  }

  async handle(request: Request, response: Response, principal: TodoMcpPrincipal): Promise<void> {
    assertAllowedMcpOrigin(request, this.allowedOrigins);
    await serveStatelessMcp(request, response, () => this.createServer(principal));
  }

  private createServer(principal: TodoMcpPrincipal): McpServer {
    const server = new McpServer(SERVER_INFO, {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: SHARED_JSON_SCHEMA_VALIDATOR,
    });
    server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TODO_TOOLS.filter((tool) => mayCallTodoTool(principal, tool.name)) }));
    server.server.setRequestHandler(CallToolRequestSchema, (request) =>
      this.callTool(principal, request.params.name, (request.params.arguments ?? {}) as Record<string, unknown>),
    );
    return server;
  }

  private async parse<T extends object>(metatype: Type<T>, value: Record<string, unknown>): Promise<T> {
    return this.validation.transform(value, { type: 'body', metatype }) as Promise<T>;
  }

  private async callTool(principal: TodoMcpPrincipal, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const userId = principal.userId;
    const tools: Record<TodoToolName, () => Promise<Record<string, unknown>>> = {
      list_todos: async () => ({ ...(await this.todos.list(userId, await this.parse(ListTodosQuery, args))) }),
      get_todo: async () => ({ ...(await this.todos.get(userId, (await this.parse(TodoIdArgs, args)).id)) }),
      create_todo: async () => {
        const { idempotencyKey } = await this.parse(IdempotencyArgs, pick(args, ['idempotencyKey']));
        const input = await this.parse(CreateTodoDto, pick(args, Object.keys(args).filter((key) => key !== 'idempotencyKey')));
        return { ...(await this.todos.create({ userId, apiKeyId: principal.kind === 'api-key' ? principal.apiKeyId : undefined }, input, idempotencyKey)).data };
      },
      update_todo: async () => {
        const { id } = await this.parse(TodoIdArgs, pick(args, ['id']));
        const changes = await this.parse(UpdateTodoDto, pick(args, Object.keys(args).filter((key) => key !== 'id')));
        return { ...(await this.todos.update(userId, id, changes)) };
      },
      delete_todo: async () => ({ ...(await this.todos.delete(userId, (await this.parse(TodoIdArgs, args)).id)) }),
    };
    if (!Object.hasOwn(tools, name)) throw new McpError(McpErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const call = tools[name as TodoToolName];
    return runTool(async () => {
      assertMayCallTodoTool(principal, name);
      return call();
    }, this.toolMetrics.listenerFor(name));
  }
}
