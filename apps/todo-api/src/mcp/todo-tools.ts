import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { TODO_LIMITS, SORT_ORDERS, TODO_SORTS } from '../todos/todo-limits.js';

/** JSON Schemas of the todo tools, written from the same limits as the REST DTOs. */
const todoSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer', minimum: 1 },
    text: { type: 'string' },
    priority: { type: 'integer', minimum: TODO_LIMITS.priorityMin, maximum: TODO_LIMITS.priorityMax, description: '1 is urgent, 4 is low' },
    category: { type: 'string' },
    estimatedDurationMinutes: { type: ['integer', 'null'], minimum: 0 },
    createdAt: { type: 'integer', description: 'Unix timestamp in seconds' },
  },
  required: ['id', 'text', 'priority', 'category', 'createdAt'],
} as const;

const idProperty = { type: 'integer', minimum: 1, description: 'The todo id (from list_todos or create_todo)' } as const;
const textProperty = { type: 'string', minLength: 1, maxLength: TODO_LIMITS.textMaxLength, description: 'What to do (1-5000 characters)' } as const;
const priorityProperty = {
  type: 'integer',
  minimum: TODO_LIMITS.priorityMin,
  maximum: TODO_LIMITS.priorityMax,
  description: 'Priority from 1 (urgent) to 4 (low)',
} as const;
const categoryProperty = {
  type: 'string',
  minLength: 1,
  maxLength: TODO_LIMITS.categoryMaxLength,
  description: 'A short free-form label such as "work" or "errands" (1-100 characters)',
} as const;
const durationProperty = { type: ['integer', 'null'], minimum: 0, description: 'Estimated minutes of work; null or omitted when unknown' } as const;

const todoResult = { type: 'object', properties: { todo: todoSchema }, required: ['todo'] } as const;

export const TODO_TOOLS = [
  {
    name: 'list_todos',
    title: 'List todos',
    description:
      "Lists the user's todos, oldest first unless sorted otherwise. Filter by category (exact), priority, or q (case-insensitive " +
      'text search). Returns at most `limit` todos (default 100, max 500) and `nextCursor`: pass it back as `cursor`, with the same ' +
      'filters and sort, to get the next page; null means there are no more.',
    inputSchema: {
      type: 'object',
      properties: {
        category: categoryProperty,
        priority: priorityProperty,
        q: { type: 'string', minLength: 1, maxLength: TODO_LIMITS.textMaxLength, description: 'Only todos whose text contains this (case-insensitive)' },
        sort: { type: 'string', enum: [...TODO_SORTS], description: 'createdAt (default) or priority' },
        order: { type: 'string', enum: [...SORT_ORDERS], description: 'asc (default) or desc' },
        limit: { type: 'integer', minimum: 1, maximum: TODO_LIMITS.listMaxLimit, description: 'Page size, default 100' },
        cursor: { type: 'string', description: 'nextCursor of the previous page' },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { todos: { type: 'array', items: todoSchema }, nextCursor: { type: ['string', 'null'] } },
      required: ['todos', 'nextCursor'],
    },
    annotations: { title: 'List todos', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'get_todo',
    title: 'Get a todo',
    description: 'Gets one todo by id. A todo that does not exist or belongs to someone else gives NOT_FOUND.',
    inputSchema: { type: 'object', properties: { id: idProperty }, required: ['id'], additionalProperties: false },
    outputSchema: todoResult,
    annotations: { title: 'Get a todo', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'create_todo',
    title: 'Create a todo',
    description:
      'Creates a todo and returns it with its id. text, priority and category are required. To retry safely after a timeout, ' +
      'send the same idempotencyKey: a repeat within 24 hours returns the first result instead of creating a duplicate.',
    inputSchema: {
      type: 'object',
      properties: {
        text: textProperty,
        priority: priorityProperty,
        category: categoryProperty,
        estimatedDurationMinutes: durationProperty,
        idempotencyKey: { type: 'string', minLength: 1, maxLength: TODO_LIMITS.idempotencyKeyMaxLength, description: 'Optional unique key (e.g. a UUID) that makes retries safe' },
      },
      required: ['text', 'priority', 'category'],
      additionalProperties: false,
    },
    outputSchema: todoResult,
    annotations: { title: 'Create a todo', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  {
    name: 'update_todo',
    title: 'Update a todo',
    description:
      'Changes a todo: give its id and at least one of text, priority, category, estimatedDurationMinutes (null clears the estimate). ' +
      'Fields not given keep their value. Returns the updated todo.',
    inputSchema: {
      type: 'object',
      properties: { id: idProperty, text: textProperty, priority: priorityProperty, category: categoryProperty, estimatedDurationMinutes: durationProperty },
      required: ['id'],
      additionalProperties: false,
    },
    outputSchema: todoResult,
    annotations: { title: 'Update a todo', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'delete_todo',
    title: 'Delete a todo',
    description: 'Deletes a todo for good (there is no undo). Returns {id, deleted: true}; an unknown id gives NOT_FOUND.',
    inputSchema: { type: 'object', properties: { id: idProperty }, required: ['id'], additionalProperties: false },
    outputSchema: {
      type: 'object',
      properties: { id: { type: 'integer' }, deleted: { type: 'boolean', enum: [true] } },
      required: ['id', 'deleted'],
    },
    annotations: { title: 'Delete a todo', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
] as unknown as Tool[];

export type TodoToolName = 'list_todos' | 'get_todo' | 'create_todo' | 'update_todo' | 'delete_todo';
