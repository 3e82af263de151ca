import { ApiProperty, getSchemaPath, type SchemaObject } from '@nestjs/swagger';
import { TodoDto } from './todo.dto.js';

/**
 * The realtime stream's events (GET /api/v1/todos/events) as the OpenAPI document describes them: one schema per
 * event name, with the SSE fields `id`, `event` and `data` (the JSON of the `data` line). The stream writes them with
 * the shared SSE framing; these classes only document what it sends (the contract test validates received events).
 */

class TodoDeletedEventDataDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 42, description: 'Id of the deleted todo' })
  id: number;
}

/** What each event name carries in its `data` line. */
export interface TodoEventData {
  'todo.created': TodoDto;
  'todo.updated': TodoDto;
  'todo.deleted': TodoDeletedEventDataDto;
}

const EVENT_ID = {
  description: 'The SSE `id` field: the event id (`evt_` and a decimal), to resume after with `Last-Event-ID`; the same id as the `webhook-id` of the webhook delivery of that change',
  example: 'evt_42',
  maxLength: 22,
};

class TodoCreatedEventDto {
  @ApiProperty(EVENT_ID)
  id: string;

  @ApiProperty({ enum: ['todo.created'], description: 'The SSE `event` field' })
  event: 'todo.created';

  @ApiProperty({ type: TodoDto, description: 'The SSE `data` field (JSON): the todo as created' })
  data: TodoDto;
}

class TodoUpdatedEventDto {
  @ApiProperty(EVENT_ID)
  id: string;

  @ApiProperty({ enum: ['todo.updated'], description: 'The SSE `event` field' })
  event: 'todo.updated';

  @ApiProperty({ type: TodoDto, description: 'The SSE `data` field (JSON): the todo as it is after the change' })
  data: TodoDto;
}

class TodoDeletedEventDto {
  @ApiProperty(EVENT_ID)
  id: string;

  @ApiProperty({ enum: ['todo.deleted'], description: 'The SSE `event` field' })
  event: 'todo.deleted';

  @ApiProperty({ type: TodoDeletedEventDataDto, description: 'The SSE `data` field (JSON): the id of the deleted todo' })
  data: TodoDeletedEventDataDto;
}

export const TODO_EVENT_MODELS = [TodoCreatedEventDto, TodoUpdatedEventDto, TodoDeletedEventDto, TodoDeletedEventDataDto];

const EVENT_SCHEMAS = { 'todo.created': TodoCreatedEventDto, 'todo.updated': TodoUpdatedEventDto, 'todo.deleted': TodoDeletedEventDto } satisfies Record<keyof TodoEventData, unknown>;

/** The `text/event-stream` body as the sequence of its events, each one of the event schemas (told apart by `event`). */
export const TODO_EVENT_STREAM_SCHEMA: SchemaObject = {
  type: 'array',
  description:
    'The stream read as the sequence of its events (each an `id:`, an `event:` and a JSON `data:` line, then a blank line); ' +
    'heartbeat comments (`:`) and a lone `retry:` field are not events.',
  items: {
    oneOf: Object.values(EVENT_SCHEMAS).map((model) => ({ $ref: getSchemaPath(model) })),
    discriminator: { propertyName: 'event', mapping: Object.fromEntries(Object.entries(EVENT_SCHEMAS).map(([name, model]) => [name, getSchemaPath(model)])) },
  },
};
