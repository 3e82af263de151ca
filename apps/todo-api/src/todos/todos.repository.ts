import { Injectable } from '@nestjs/common';
import { lockAccountRow } from '#libs/identity';
import { Database, IdempotencyKeys, PreparedQueries, type DedicatedConnection, type Transaction } from '#libs/database';
import type { CreateTodoDto, UpdateTodoDto } from './dto/todo-input.dto.js';
import type { SortOrder, TodoSort } from './todo-limits.js';

/** A todo as read from the database, with createdAt in Unix seconds and its exact keyset value. */
export interface TodoRow {
  id: number;
  text: string;
  priority: number;
  category: string;
  estimatedDurationMinutes: number | null;
  createdAt: number;
  /** created_at as Postgres text, full precision: the keyset value of cursors. */
  createdAtKey: string;
}

export interface TodoListFilter {
  category?: string;
  priority?: number;
  q?: string;
}

export interface TodoKeyset {
  priority?: number;
  createdAtKey: string;
  id: number;
}

export interface TodoEventRow {
  id: string;
  type: string;
  payload: unknown;
}

/** The NOTIFY channel on which replicas tell each other about todo events. */
const TODO_EVENTS_CHANNEL = 'todo_events';

const TODO_COLUMNS = `id, text, priority, category, estimated_duration_minutes AS "estimatedDurationMinutes",
  floor(extract(epoch FROM created_at))::bigint AS "createdAt", created_at::text AS "createdAtKey"`;

function toRow(raw: any): TodoRow {
  return {
    id: Number(raw.id),
    text: raw.text,
    priority: Number(raw.priority),
    category: raw.category,
    estimatedDurationMinutes: raw.estimatedDurationMinutes === null ? null : Number(raw.estimatedDurationMinutes),
    createdAt: Number(raw.createdAt),
    createdAtKey: raw.createdAtKey,
  };
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Every query takes the owner first and filters on it: another account's todo does not exist here. */
@Injectable()
export class TodosRepository {
  constructor(
    private readonly sql: Database,
    private readonly prepared: PreparedQueries,
  ) {}

  /** Todo writes are the hot write path: their statements run prepared (see PreparedQueries). */
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.prepared.transaction(work);
  }

  /** Serialises one account's writes, so its event ids grow in commit order (Last-Event-ID resume relies on it). */
  async lockOwner(tx: Transaction, userId: string): Promise<boolean> {
    return lockAccountRow(tx, userId, 'no-key-update');
  }

  async list(userId: string, filter: TodoListFilter, sort: TodoSort, order: SortOrder, limit: number, after?: TodoKeyset): Promise<TodoRow[]> {
    const params: unknown[] = [userId];
    const where = ['user_id = $1'];
    if (filter.category !== undefined) where.push(`category = $${params.push(filter.category)}`);
    if (filter.priority !== undefined) where.push(`priority = $${params.push(filter.priority)}`);
    if (filter.q !== undefined) where.push(`text ILIKE $${params.push(`%${escapeLike(filter.q)}%`)} ESCAPE '\\'`);
    const direction = order === 'desc' ? 'DESC' : 'ASC';
    const comparison = order === 'desc' ? '<' : '>';
    if (after) {
      if (sort === 'priority') {
        where.push(
          `(priority, created_at, id) ${comparison} ($${params.push(after.priority)}::smallint, $${params.push(after.createdAtKey)}::timestamptz, $${params.push(after.id)}::integer)`,
        );
      } else {
        where.push(`(created_at, id) ${comparison} ($${params.push(after.createdAtKey)}::timestamptz, $${params.push(after.id)}::integer)`);
      }
    }
    const orderBy = sort === 'priority' ? `priority ${direction}, created_at ${direction}, id ${direction}` : `created_at ${direction}, id ${direction}`;
    // The text varies only by which filters are present, the sort and the order: a few dozen statements at most.
    const rows = await this.prepared.query(
      `SELECT ${TODO_COLUMNS} FROM todos WHERE ${where.join(' AND ')} ORDER BY ${orderBy} LIMIT $${params.push(limit)}`,
      params,
    );
    return rows.map(toRow);
  }

  async findOne(userId: string, id: number): Promise<TodoRow | undefined> {
    const rows = await this.prepared.query(`SELECT ${TODO_COLUMNS} FROM todos WHERE user_id = $1 AND id = $2`, [userId, id]);
    return rows[0] ? toRow(rows[0]) : undefined;
  }

  async findAllOf(userId: string): Promise<TodoRow[]> {
    const rows = await this.sql.query(`SELECT ${TODO_COLUMNS} FROM todos WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
    return rows.map(toRow);
  }

  async insert(tx: Transaction, userId: string, input: CreateTodoDto): Promise<TodoRow> {
    const rows = await tx.query(
      `INSERT INTO todos (user_id, text, priority, category, estimated_duration_minutes) VALUES ($1, $2, $3, $4, $5) RETURNING ${TODO_COLUMNS}`,
      [userId, input.text, input.priority, input.category, input.estimatedDurationMinutes ?? null],
    );
    return toRow(rows[0]);
  }

  async update(tx: Transaction, userId: string, id: number, changes: UpdateTodoDto): Promise<TodoRow | undefined> {
    const params: unknown[] = [userId, id];
    const sets = ['updated_at = now()'];
    if (changes.text !== undefined) sets.push(`text = $${params.push(changes.text)}`);
    if (changes.priority !== undefined) sets.push(`priority = $${params.push(changes.priority)}`);
    if (changes.category !== undefined) sets.push(`category = $${params.push(changes.category)}`);
    if (changes.estimatedDurationMinutes !== undefined) sets.push(`estimated_duration_minutes = $${params.push(changes.estimatedDurationMinutes)}`);
    const rows = await tx.query(`UPDATE todos SET ${sets.join(', ')} WHERE user_id = $1 AND id = $2 RETURNING ${TODO_COLUMNS}`, params);
    return rows[0] ? toRow(rows[0]) : undefined;
  }

  /** The owner's categories with how many todos each holds, by name. */
  async categoryCounts(userId: string): Promise<Array<{ category: string; count: number }>> {
    return this.sql.query(`SELECT category, count(*)::int AS count FROM todos WHERE user_id = $1 GROUP BY category ORDER BY category`, [userId]);
  }

  async delete(tx: Transaction, userId: string, id: number): Promise<boolean> {
    const rows = await tx.query(`DELETE FROM todos WHERE user_id = $1 AND id = $2 RETURNING id`, [userId, id]);
    return rows.length > 0;
  }

  // --- Event log of the realtime stream ---

  async appendEvent(tx: Transaction, userId: string, type: string, payload: unknown): Promise<string> {
    const rows = await tx.query<{ id: string }>(`INSERT INTO todo_events (user_id, type, payload) VALUES ($1, $2, $3) RETURNING id::text AS id`, [
      userId,
      type,
      JSON.stringify(payload),
    ]);
    return rows[0].id;
  }

  /** A notice to every replica's listener, delivered at commit of `tx` (at once without one). */
  async notifyEvents(tx: Transaction | undefined, notice: string): Promise<void> {
    await (tx ?? this.prepared).query(`SELECT pg_notify($1, $2)`, [TODO_EVENTS_CHANNEL, notice]);
  }

  /** A connection of its own (not from the pool) for the events channel; the caller connects it, listens (`listenForEvents`) and ends it. */
  eventsConnection(): DedicatedConnection {
    return this.sql.dedicatedConnection('todo-api-events');
  }

  /** Every notice on the events channel, from now on, to `onNotice`. */
  listenForEvents(connection: DedicatedConnection, onNotice: (payload: string) => void): Promise<void> {
    return connection.listen(TODO_EVENTS_CHANNEL, onNotice);
  }

  async eventsAfter(userId: string, afterId: string, limit: number): Promise<TodoEventRow[]> {
    return this.sql.query(
      `SELECT id::text AS id, type, payload FROM todo_events WHERE user_id = $1 AND id > $2::bigint ORDER BY id LIMIT $3`,
      [userId, afterId, limit],
    );
  }

  async latestEventId(userId: string): Promise<string> {
    const rows = await this.sql.query<{ id: string }>(`SELECT coalesce(max(id), 0)::text AS id FROM todo_events WHERE user_id = $1`, [userId]);
    return rows[0].id;
  }

  async sweepExpired(idempotencyHours: number, eventHours: number): Promise<void> {
    await IdempotencyKeys.sweep(this.sql, idempotencyHours);
    await this.sql.query(`DELETE FROM todo_events WHERE created_at < now() - make_interval(hours => $1)`, [eventHours]);
  }
}
