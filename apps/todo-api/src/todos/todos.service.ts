import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Transaction } from '#libs/database';
import { AppException, assertIdempotencyKey, ErrorCode, IDEMPOTENCY_WINDOW_HOURS, idempotencyRequestHash, idempotentWrite, PeriodicTask, SignedCursorCodec, validationException } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { CreateTodoDto, UpdateTodoDto, UpdateTodoItemDto } from './dto/todo-input.dto.js';
import type { ListTodosQuery } from './dto/list-todos.query.js';
import type { TodoEventData } from './dto/todo-event.dto.js';
import { toCategoryCountDto, toTodoDto, type CategoriesDto, type DeletedTodoDto, type TodoDataDto, type TodoDto, type TodoListDto, type TodosDataDto } from './dto/todo.dto.js';
import { TodoEventsService, type TodoEventType } from './todo-events.service.js';
import { EVENT_RETENTION_HOURS, TODO_LIMITS, type SortOrder, type TodoSort } from './todo-limits.js';
import { TodosRepository, type TodoKeyset, type TodoListFilter } from './todos.repository.js';

/** Who acts on todos: the owner, and the API key or OAuth grant (Idempotency-Keys are stored per key, or per grant). */
export interface TodoActor {
  userId: string;
  apiKeyId?: string;
  grantId?: string;
}

export interface CreateTodoOutcome {
  data: TodoDataDto;
  /** True when an earlier request with the same Idempotency-Key is answered again. */
  replayed: boolean;
}

/** An event written in a change's transaction: announced to the streams and counted once the change commits. */
interface RecordedEvent {
  id: string;
  type: TodoEventType;
}

interface CursorPayload {
  v: 1;
  s: TodoSort;
  o: SortOrder;
  /** Fingerprint of the filters the cursor was made for. */
  f: string;
  k: TodoKeyset;
}

function filterFingerprint(filter: TodoListFilter): string {
  return createHash('sha256')
    .update(JSON.stringify([filter.category ?? null, filter.priority ?? null, filter.q ?? null]))
    .digest('base64url')
    .slice(0, 16);
}

/** An update must change something: at least one of its fields (400 naming `field` otherwise). */
function requireSomeChange(changes: UpdateTodoDto, field: string): void {
  const present = (['text', 'priority', 'category', 'estimatedDurationMinutes'] as const).filter((name) => changes[name] !== undefined);
  if (present.length === 0) {
    throw validationException(
      [{ field, messages: ['at least one of text, priority, category, estimatedDurationMinutes is required'] }],
      'The update changes nothing: give at least one property',
    );
  }
}

function invalidCursor(message = 'The cursor is invalid'): AppException {
  return validationException([{ field: 'cursor', messages: [message] }], message);
}

/** Checks the shape of a cursor's payload (the signature already proved it was made here) and that it fits this list. */
function keysetOf(opened: unknown, sort: TodoSort, order: SortOrder, fingerprint: string): TodoKeyset {
  const payload = opened as CursorPayload | undefined;
  const key = payload?.k;
  if (
    payload?.v !== 1 ||
    typeof key !== 'object' ||
    key === null ||
    !Number.isInteger(key.id) ||
    typeof key.createdAtKey !== 'string' ||
    !/^[0-9 :.+-]{10,40}$/.test(key.createdAtKey) ||
    (payload.s === 'priority' && !Number.isInteger(key.priority))
  ) {
    throw invalidCursor();
  }
  if (payload.s !== sort || payload.o !== order || payload.f !== fingerprint) {
    throw invalidCursor('The cursor belongs to a list with other filters, sort or order');
  }
  return key;
}

/** The todo rules, shared by the REST controller and the MCP tools. */
@Injectable()
export class TodosService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(TodosService.name);
  /** Expired idempotency records and old events go, every 15 minutes on every replica (idempotent deletes). */
  private readonly sweeper = new PeriodicTask('Sweep of expired idempotency records and events', 15 * 60_000, () => this.repository.sweepExpired(IDEMPOTENCY_WINDOW_HOURS, EVENT_RETENTION_HOURS), this.logger);

  private readonly cursors: SignedCursorCodec;

  constructor(
    private readonly repository: TodosRepository,
    private readonly events: TodoEventsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.cursors = new SignedCursorCodec(config.jwtSecret, 'todo-list-cursor');
  }

  onModuleInit(): void {
    this.sweeper.start();
  }

  onModuleDestroy(): void {
    this.sweeper.stop();
  }

  async list(userId: string, query: ListTodosQuery): Promise<TodoListDto> {
    const sort = query.sort ?? 'createdAt';
    const order = query.order ?? 'asc';
    const limit = query.limit ?? TODO_LIMITS.listDefaultLimit;
    const filter: TodoListFilter = { category: query.category, priority: query.priority, q: query.q };
    const fingerprint = filterFingerprint(filter);
    const after = query.cursor ? keysetOf(this.cursors.open(query.cursor), sort, order, fingerprint) : undefined;
    const rows = await this.repository.list(userId, filter, sort, order, limit + 1, after);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const nextCursor =
      rows.length > limit && last
        ? this.cursors.seal({ v: 1, s: sort, o: order, f: fingerprint, k: { priority: sort === 'priority' ? last.priority : undefined, createdAtKey: last.createdAtKey, id: last.id } })
        : null;
    return { todos: page.map(toTodoDto), nextCursor };
  }

  async get(userId: string, id: number): Promise<TodoDataDto> {
    const row = await this.repository.findOne(userId, id);
    if (!row) throw this.notFound(id);
    return { todo: toTodoDto(row) };
  }

  async create(actor: TodoActor, input: CreateTodoDto, idempotencyKey?: string): Promise<CreateTodoOutcome> {
    const keyed = this.idempotencyScope(actor, idempotencyKey, [input.text, input.priority, input.category, input.estimatedDurationMinutes ?? null]);

    let event: RecordedEvent | undefined;
    const outcome = await this.repository.transaction(async (tx) => {
      await this.lockOwner(tx, actor.userId);
      return idempotentWrite(tx, keyed, 201, async (): Promise<TodoDataDto> => {
        const todo = toTodoDto(await this.repository.insert(tx, actor.userId, input));
        event = await this.recordEvent(tx, actor.userId, 'todo.created', todo);
        return { todo };
      });
    });
    if (event) this.events.committed(actor.userId, event);
    return { data: outcome.data, replayed: outcome.replayed };
  }

  /**
   * Where an Idempotency-Key is kept for this caller (an API key or an OAuth grant; a JWT caller has
   * none), and the hash of what it covers; undefined when the write is not keyed.
   */
  private idempotencyScope(actor: TodoActor, idempotencyKey: string | undefined, covered: unknown[]) {
    assertIdempotencyKey(idempotencyKey);
    const caller = actor.apiKeyId !== undefined ? `key:${actor.apiKeyId}` : actor.grantId !== undefined ? `grant:${actor.grantId}` : undefined;
    if (idempotencyKey === undefined || !caller) return undefined;
    return { caller, key: idempotencyKey, userId: actor.userId, apiKeyId: actor.apiKeyId ?? null, requestHash: idempotencyRequestHash(covered) };
  }

  async update(userId: string, id: number, changes: UpdateTodoDto): Promise<TodoDataDto> {
    requireSomeChange(changes, 'body');
    const { todo, event } = await this.repository.transaction(async (tx) => {
      await this.lockOwner(tx, userId);
      const row = await this.repository.update(tx, userId, id, changes);
      if (!row) throw this.notFound(id);
      const updated = toTodoDto(row);
      return { todo: updated, event: await this.recordEvent(tx, userId, 'todo.updated', updated) };
    });
    this.events.committed(userId, event);
    return { todo };
  }

  /**
   * Creates up to TODO_LIMITS.bulkMaxItems todos, all or none: one transaction, each item under
   * create's rules, one todo.created event each. An Idempotency-Key covers the whole list.
   */
  async createMany(actor: TodoActor, inputs: CreateTodoDto[], idempotencyKey?: string): Promise<TodosDataDto> {
    const keyed = this.idempotencyScope(actor, idempotencyKey, ['bulk', ...inputs.flatMap((input) => [input.text, input.priority, input.category, input.estimatedDurationMinutes ?? null])]);
    const events: RecordedEvent[] = [];
    const outcome = await this.repository.transaction(async (tx) => {
      await this.lockOwner(tx, actor.userId);
      return idempotentWrite(tx, keyed, 201, async (): Promise<TodosDataDto> => {
        const todos: TodoDto[] = [];
        for (const input of inputs) {
          const todo = toTodoDto(await this.repository.insert(tx, actor.userId, input));
          events.push(await this.recordEvent(tx, actor.userId, 'todo.created', todo));
          todos.push(todo);
        }
        return { todos };
      });
    });
    for (const event of events) this.events.committed(actor.userId, event);
    return outcome.data;
  }

  /**
   * Applies up to TODO_LIMITS.bulkMaxItems updates, all or none: each under update's rules (at
   * least one change), an id at most once; any unknown id is NOT_FOUND and nothing changes.
   */
  async updateMany(userId: string, items: UpdateTodoItemDto[]): Promise<TodosDataDto> {
    const seen = new Set<number>();
    items.forEach(({ id, ...changes }, i) => {
      requireSomeChange(changes, `todos.${i}`);
      if (seen.has(id)) throw validationException([{ field: `todos.${i}.id`, messages: [`todo ${id} appears more than once in this update`] }]);
      seen.add(id);
    });
    const events: RecordedEvent[] = [];
    const todos = await this.repository.transaction(async (tx) => {
      await this.lockOwner(tx, userId);
      const updated: TodoDto[] = [];
      for (const [i, { id, ...changes }] of items.entries()) {
        const row = await this.repository.update(tx, userId, id, changes);
        if (!row) throw new AppException(ErrorCode.NOT_FOUND, `Todo ${id} not found (todos.${i}); nothing was changed`, { index: i, id });
        const todo = toTodoDto(row);
        events.push(await this.recordEvent(tx, userId, 'todo.updated', todo));
        updated.push(todo);
      }
      return updated;
    });
    for (const event of events) this.events.committed(userId, event);
    return { todos };
  }

  /** The account's categories (the todo's grouping field) with how many todos each holds, by name. */
  async categories(userId: string): Promise<CategoriesDto> {
    return { categories: (await this.repository.categoryCounts(userId)).map(toCategoryCountDto) };
  }

  async delete(userId: string, id: number): Promise<DeletedTodoDto> {
    const event = await this.repository.transaction(async (tx) => {
      await this.lockOwner(tx, userId);
      if (!(await this.repository.delete(tx, userId, id))) throw this.notFound(id);
      return this.recordEvent(tx, userId, 'todo.deleted', { id });
    });
    this.events.committed(userId, event);
    return { id, deleted: true };
  }

  /** Every todo of the account, oldest first (account export). */
  async allOf(userId: string): Promise<TodoDto[]> {
    return (await this.repository.findAllOf(userId)).map(toTodoDto);
  }

  private async lockOwner(tx: Transaction, userId: string): Promise<void> {
    // The account was deleted between authentication and this write.
    if (!(await this.repository.lockOwner(tx, userId))) throw new AppException(ErrorCode.INVALID_API_KEY, 'The API key is invalid, revoked or expired');
  }

  private async recordEvent<Type extends TodoEventType>(tx: Transaction, userId: string, type: Type, payload: TodoEventData[Type]): Promise<RecordedEvent> {
    const eventId = await this.repository.appendEvent(tx, userId, type, payload);
    await this.events.announce(tx, userId, eventId);
    return { id: eventId, type };
  }

  private notFound(id: number): AppException {
    return new AppException(ErrorCode.NOT_FOUND, `Todo ${id} not found`);
  }
}
