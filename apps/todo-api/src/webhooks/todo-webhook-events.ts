import { WEBHOOK_OWNER_KINDS, type EventLogVocabulary } from '#libs/webhooks';
import type { TodoDto } from '../todos/dto/todo.dto.js';
import type { TodoEventData } from '../todos/dto/todo-event.dto.js';

/** The owner kind of todo-api's webhook endpoints (owner id: the user id); the todo_events trigger names it too. */
export const TODO_WEBHOOK_OWNER_KIND = WEBHOOK_OWNER_KINDS.account;

/** The subject of the mail to an account whose webhook endpoint was disabled for failing too long. */
export const WEBHOOK_DISABLED_SUBJECT = 'Your webhook endpoint was disabled';

/** Most webhook endpoints one account may have. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 10;

const SAMPLE_TODO: TodoDto = { id: 42, text: 'Renew the passport', priority: 2, category: 'errands', estimatedDurationMinutes: 30, createdAt: 1763700000 };

/** todo-api's event catalogue: every type a webhook can receive, with the sample `data` a test event carries. */
export const TODO_WEBHOOK_EVENTS = {
  'todo.created': SAMPLE_TODO,
  'todo.updated': { ...SAMPLE_TODO, priority: 1 },
  'todo.deleted': { id: 42 },
} satisfies { [Type in keyof TodoEventData]: TodoEventData[Type] };

/** todo_events_written_total (libs/webhooks eventsWrittenCounter): events written to the event log, by type. */
export const TODO_EVENTS_WRITTEN: EventLogVocabulary<keyof TodoEventData> = {
  name: 'todo_events_written_total',
  help: "Todo events written to the event log (the realtime stream and the webhooks' outbox), by type",
  eventTypes: Object.keys(TODO_WEBHOOK_EVENTS) as Array<keyof TodoEventData>,
};
