import { Controller, Get, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExtraModels, ApiHeader, ApiOperation, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiErrors, CurrentUserId, ErrorCode, RateLimit, RawResponse, UseAuth } from '#libs/common';
import { TODO_EVENT_MODELS, TODO_EVENT_STREAM_SCHEMA } from './dto/todo-event.dto.js';
import { TodoEventsOutageFilter } from './todo-events-outage.filter.js';
import { TodoEventsService } from './todo-events.service.js';
import { TODO_STREAMS_PER_ACCOUNT } from './todo-stream-leases.service.js';

/** The realtime stream: a long-lived response, judged by admission control once, when it opens (createHttpApp's longLivedPaths). */
export const TODO_EVENTS_PATH = '/api/v1/todos/events';

@ApiTags('Todos')
@Controller()
export class TodoEventsController {
  constructor(private readonly events: TodoEventsService) {}

  @Get(TODO_EVENTS_PATH.slice(1))
  @UseAuth('jwt-or-api-key')
  // Opening streams, not events: generous for reconnects, a brake on reconnect storms.
  @RateLimit({ bucket: 'todo-events', limit: 120, windowSeconds: 60, storeOutage: 'fail-open' })
  @RawResponse()
  // A database outage answers 200 with a `retry:` hint and ends (EventSource gives up on a 503).
  @UseFilters(TodoEventsOutageFilter)
  @ApiOperation({
    operationId: 'streamTodoEvents',
    summary: 'Realtime stream of your todo changes (server-sent events)',
    description:
      'Events `todo.created` and `todo.updated` (data: the Todo) and `todo.deleted` (data: `{id}`), each with an `id`; ' +
      'a comment line (`:`) every 25 s as heartbeat. Changes made through any replica arrive. Reconnect with ' +
      '`Last-Event-ID` (EventSource does) to receive what was missed, for up to 24 hours. Authenticate with an API key ' +
      '(`Authorization: Bearer`, `X-API-Key`) or an access token (`Authorization: Bearer`), or — for EventSource, which ' +
      'cannot send headers — with `access_token=<JWT or API key>` in the query. Needs an active subscription or beta access. ' +
      'The stream lives as long as its credential: within seconds of the API key being revoked, rotated or expiring, the ' +
      'session being signed out (logout, password change or reset), API access lapsing, the account being deleted, or the ' +
      "access token's own expiry, the response ends (EventSource then reconnects and gets 401 or 402; use a fresh token). " +
      `At most ${TODO_STREAMS_PER_ACCOUNT} streams per account may be open at once, over all replicas: one more is 429 \`RATE_LIMITED\`. ` +
      'While the service cannot reach its database (to verify the credential or hold the stream) the answer is still 200 ' +
      '`text/event-stream`, with only a `retry:` field (milliseconds: the outage\'s Retry-After, spread) and the stream ended at once, ' +
      'so EventSource reconnects later on its own instead of giving up as it does on a 503.',
  })
  @ApiQuery({
    name: 'access_token',
    required: false,
    schema: { type: 'string', maxLength: 4096 },
    example: 'tdk_8fK2pQ1xV0aZ3mX0k9pL2sT8wR1yU6zA4b1x9QeZ',
    description: 'JWT or API key, for clients that cannot send headers (EventSource)',
  })
  @ApiHeader({ name: 'Last-Event-ID', required: false, schema: { type: 'string', example: 'evt_41' }, description: 'Resume after this event id (EventSource sends it on reconnect); a bare decimal (`41`, ids before `evt_`) is accepted too' })
  @ApiProduces('text/event-stream')
  @ApiExtraModels(...TODO_EVENT_MODELS)
  @ApiResponse({
    status: 200,
    description:
      'text/event-stream: `id`, `event` and a JSON `data` line per change, each event one of the schemas below (by its `event` name). On the wire:\n\n' +
      '```\nid: evt_42\nevent: todo.created\ndata: {"id":7,"text":"Renew the passport","priority":2,"category":"errands","estimatedDurationMinutes":null,"createdAt":1763700000}\n\n' +
      ':\n\nid: evt_43\nevent: todo.deleted\ndata: {"id":7}\n```',
    content: {
      'text/event-stream': {
        schema: TODO_EVENT_STREAM_SCHEMA,
        example: [
          { id: '42', event: 'todo.created', data: { id: 7, text: 'Renew the passport', priority: 2, category: 'errands', estimatedDurationMinutes: null, createdAt: 1763700000 } },
          { id: '43', event: 'todo.deleted', data: { id: 7 } },
        ],
      },
    },
  })
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.INVALID_API_KEY, ErrorCode.SUBSCRIPTION_REQUIRED, ErrorCode.RATE_LIMITED)
  stream(@Req() request: Request, @Res() response: Response, @CurrentUserId() userId: string): Promise<void> {
    return this.events.open(request, response, userId);
  }
}
