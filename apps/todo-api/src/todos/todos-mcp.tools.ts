import { Injectable, OnModuleInit } from '@nestjs/common';
import { z } from 'zod';
import { AttemptLimiter, IDEMPOTENCY_KEY_MAX_LENGTH, principalRateLimitTracker, RateLimitStoreUnavailableError } from '#libs/common';
import { TodoMcpToolRegistry, type TodoMcpPrincipal, type TodoMcpScope } from '../mcp/todo-mcp-tool.registry.js';
import { CreateTodoDto, CreateTodosDto, UpdateTodoDto, UpdateTodosDto } from './dto/todo-input.dto.js';
import { ListTodosQuery } from './dto/list-todos.query.js';
import { TODO_RATE_LIMIT } from './todo-rate-limit.js';
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

const idempotencyKey = z.string().min(1).max(IDEMPOTENCY_KEY_MAX_LENGTH).describe('Optional unique key (e.g. a UUID) that makes retries safe');
const BULK = TODO_LIMITS.bulkMaxItems;

const READ: readonly TodoMcpScope[] = ['todos:read'];
const WRITE: readonly TodoMcpScope[] = ['todos:write'];

/** The todo tools of the MCP endpoint: the REST routes' rules and answers, through TodosService. */
@Injectable()
export class TodosMcpTools implements OnModuleInit {
  constructor(
    private readonly registry: TodoMcpToolRegistry,
    private readonly todos: TodosService,
    private readonly limiter: AttemptLimiter,
  ) {}

  /**
   * A bulk call is one request to the endpoint's rate limit; its other items are counted against
   * the same budget here (what as many REST calls would cost), before anything is written: over
   * it, the call is RATE_LIMITED and writes nothing. While the counters are down it is served,
   * as the todo routes are (fail open).
   */
  private async chargeItems(principal: TodoMcpPrincipal, items: number): Promise<void> {
    const budget = { bucket: TODO_RATE_LIMIT.bucket, tracker: principalRateLimitTracker(principal, undefined, TODO_RATE_LIMIT), limit: TODO_RATE_LIMIT.limit, windowSeconds: TODO_RATE_LIMIT.windowSeconds };
    try {
      for (let i = 1; i < items; i++) {
        await this.limiter.count([budget], (retryAfter) => `This call's ${items} items would take the todo rate limit (${budget.limit} per ${budget.windowSeconds} s) over; retry in ${retryAfter} s`);
      }
    } catch (error) {
      if (!(error instanceof RateLimitStoreUnavailableError)) throw error;
    }
  }

  private actorOf(principal: TodoMcpPrincipal) {
    return {
      userId: principal.userId,
      apiKeyId: principal.kind === 'api-key' ? principal.credentialId : undefined,
      grantId: principal.kind === 'oauth' ? principal.grantId : undefined,
    };
  }

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
      rules: ListTodosQuery,
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
        idempotencyKey: idempotencyKey.optional(),
      }),
      output: todoResult,
      rules: CreateTodoDto,
      scopes: WRITE,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: async (principal, { idempotencyKey, ...input }) =>
        (
          await this.todos.create(this.actorOf(principal), input, idempotencyKey)
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
    this.registry.register({
      name: 'create_todos',
      title: 'Create several todos',
      description:
        `Creates 1..${BULK} todos at once, all or none: each under create_todo's rules; if one is refused nothing is created. ` +
        'Returns {todos} in the order given. Each item counts against the rate limit as a create_todo call would. ' +
        'An idempotencyKey covers the whole list: a repeat within 24 hours returns the first result.',
      input: z.object({
        todos: z
          .array(z.strictObject({ text, priority, category, estimatedDurationMinutes: duration.optional() }))
          .min(1)
          .max(BULK)
          .describe(`1..${BULK} todos to create, each with text, priority and category`),
        idempotencyKey: idempotencyKey.optional(),
      }),
      output: z.object({ todos: z.array(todo).describe('The created todos, in the order given') }),
      rules: CreateTodosDto,
      scopes: WRITE,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: async (principal, args) => {
        await this.chargeItems(principal, args.todos.length);
        return this.todos.createMany(this.actorOf(principal), args.todos, args.idempotencyKey);
      },
    });
    this.registry.register({
      name: 'update_todos',
      title: 'Update several todos',
      description:
        `Changes 1..${BULK} todos at once, all or none: each item gives an id (at most once per call) and at least one of text, priority, ` +
        'category, estimatedDurationMinutes (null clears the estimate). If any is refused or not found (NOT_FOUND names it), nothing changes. ' +
        'Returns {todos} in the order given. Each item counts against the rate limit as an update_todo call would.',
      input: z.object({
        todos: z
          .array(z.strictObject({ id, text: text.optional(), priority: priority.optional(), category: category.optional(), estimatedDurationMinutes: duration.optional() }))
          .min(1)
          .max(BULK)
          .describe(`1..${BULK} changes, each an id and the fields to change`),
      }),
      output: z.object({ todos: z.array(todo).describe('The updated todos, in the order given') }),
      rules: UpdateTodosDto,
      scopes: WRITE,
      hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      run: async (principal, args) => {
        await this.chargeItems(principal, args.todos.length);
        return this.todos.updateMany(principal.userId, args.todos);
      },
    });
    this.registry.register({
      name: 'list_categories',
      title: 'List categories',
      description: "The categories the user's todos use, by name, each with its number of todos: {categories}. Use one as list_todos' category filter.",
      input: z.object({}),
      output: z.object({
        categories: z
          .array(z.object({ category: z.string().describe('The category, as todos carry it'), count: z.number().int().min(1).describe('Todos in this category') }))
          .describe('Every category in use, by name'),
      }),
      scopes: READ,
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (principal) => this.todos.categories(principal.userId),
    });
  }
}
