/** Event ids on the wire (SSE `id:` and webhook `webhook-id`): `evt_` and the event log row's id. */
const EVENT_ID_PREFIX = 'evt_';

export function eventIdOf(sequence: string | bigint): string {
  return `${EVENT_ID_PREFIX}${sequence}`;
}

/** The log sequence in an event id, also accepting the bare number (clients from before `evt_` ids); undefined otherwise. */
export function sequenceOfEventId(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const bare = value.startsWith(EVENT_ID_PREFIX) ? value.slice(EVENT_ID_PREFIX.length) : value;
  return /^[0-9]{1,18}$/.test(bare) ? bare : undefined;
}
