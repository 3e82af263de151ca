import { Injectable, OnModuleInit } from '@nestjs/common';
import { z } from 'zod';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from '#libs/common';
import { TodoMcpToolRegistry, type TodoMcpScope } from '../mcp/todo-mcp-tool.registry.js';
import { CreateTodoDto, UpdateTodoDto } from './dto/todo-input.dto.js';
import { SORT_ORDERS, TODO_LIMITS, TODO_SORTS } from './todo-limits.js';
import { TodosService } from './todos.service.js';

// The arguments follow the REST DTOs' rules, written from the same limits (todo-limits.ts).
const id = z.number().int().min(1).max(2147483647).describe('The todo id (from list_todos or create_todo)');
const text = z.string().min(1).max(TODO_LIMITS.textMaxLength).describe('What to do (1-5000 characters)');
const priority = z.number().int().min(TODO_LIMITS.priorityMin).max(TODO_LIMITS.priorityMax).describe('Priority from 1 (urgent) to 4 (low)');
const category = z.string().min(1).max(TODO_LIMITS.categoryMaxLength).describe('A short free-form label such as "work" or "errands" (1-100 characters)');
const duration = z.number().int().min(0).nullable().describe('Estimated minutes of work; null or omitted when unknown');

const todo = z.object({
  id: z.number().int().min(1).describe('The todo id'),
  text: z.string().describe('What to do'),
  priority: z.number().int().min(TODO_LIMITS.priorityMin).max(TODO_LIMITS.priorityMax).describe('1 is urgent, 4 is low'),
  category: z.string().describe('Its label'),
  estimatedDurationMinutes: z.number().int().min(0).nullable().describe('Estimated minutes of work; null when unknown'),
  createdAt: z.number().int().nonnegative().describe('Unix timestamp in seconds'),
});
const todoResult = z.object({ todo: todo.describe('The todo') });

const READ: readonly TodoMcpScope[] = ['todos:read'];
const WRITE: readonly TodoMcpScope[] = ['todos:write'];

/** The todo tools of the MCP endpoint: the REST routes' rules and answers, through TodosService. */
@Injectable()
export class TodosMcpTools implements OnModuleInit {
  constructor(
    private readonly registry: TodoMcpToolRegistry,
    private readonly todos: TodosService,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      name: 'list_todos',
      title: 'List todos',
      description:
        "Lists the user's todos, oldest first unless sorted otherwise. Filter by category (exact), priority, or q (case-insensitive " +
        'text search). Returns at most `limit` todos (default 100, max 500) and `nextCursor`: pass it back as `cursor`, with the same ' +
        'filters and sort, to get the next page; null means there are no more.',
      input: z.object({
        category,
        priority,
        q: z.string().min(1).max(TODO_LIMITS.textMaxLength).describe('Only todos whose text contains this (case-insensitive)'),
        sort: z.enum(TODO_SORTS).describe('createdAt (default) or priority'),
        order: z.enum(SORT_ORDERS).describe('asc (default) or desc'),
        limit: z.number().int().min(1).max(TODO_LIMITS.listMaxLimit).describe('Page size, default 100'),
        cursor: z.string().min(1).max(2000).describe('nextCursor of the previous page'),
      }).partial(),
      output: z.object({
        todos: z.array(todo).describe('This page of todos'),
        nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null when there are no more'),
      }),
      scopes: READ,
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (principal, query) => this.todos.list(principal.userId, query),
    });
    this.registry.register({
      name: 'get_todo',
      title: 'Get a todo',
      description: 'Gets one todo by id. A todo that does not exist or belongs to someone else gives NOT_FOUND.',
      input: z.object({ id }),
      output: todoResult,
      scopes: READ,
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (principal, args) => this.todos.get(principal.userId, args.id),
    });
    this.registry.register({
      name: 'create_todo',
      title: 'Create a todo',
      description:
        'Creates a todo and returns it with its id. text, priority and category are required. To retry safely after a timeout, ' +
        'send the same idempotencyKey: a repeat within 24 hours returns the first result instead of creating a duplicate.',
      input: z.object({
        text,
        priority,
        category,
        estimatedDurationMinutes: duration.optional(),
        idempotencyKey: z.string().min(1).max(IDEMPOTENCY_KEY_MAX_LENGTH).optional().describe('Optional unique key (e.g. a UUID) that makes retries safe'),
      }),
      output: todoResult,
      rules: CreateTodoDto,
      scopes: WRITE,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: async (principal, { idempotencyKey, ...input }) =>
        (
          await this.todos.create(
            {
              userId: principal.userId,
              apiKeyId: principal.kind === 'api-key' ? principal.credentialId : undefined,
              grantId: principal.kind === 'oauth' ? principal.grantId : undefined,
            },
            input,
            idempotencyKey,
          )
        ).data,
    });
    this.registry.register({
      name: 'update_todo',
      title: 'Update a todo',
      description:
        'Changes a todo: give its id and at least one of text, priority, category, estimatedDurationMinutes (null clears the estimate). ' +
        'Fields not given keep their value. Returns the updated todo.',
      input: z.object({ id, text: text.optional(), priority: priority.optional(), category: category.optional(), estimatedDurationMinutes: duration.optional() }),
      output: todoResult,
      rules: UpdateTodoDto,
      scopes: WRITE,
      hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      run: async (principal, { id: todoId, ...changes }) => this.todos.update(principal.userId, todoId, changes),
    });
    this.registry.register({
      name: 'delete_todo',
      title: 'Delete a todo',
      description: 'Deletes a todo for good (there is no undo). Returns {id, deleted: true}; an unknown id gives NOT_FOUND.',
      input: z.object({ id }),
      output: z.object({ id: z.number().int().min(1).describe('The deleted todo id'), deleted: z.literal(true).describe('Always true') }),
      scopes: WRITE,
      hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      run: async (principal, args) => this.todos.delete(principal.userId, args.id),
    });
  }
}
