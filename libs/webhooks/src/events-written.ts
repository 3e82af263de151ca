import type { AppMetrics } from '#libs/common';

/** What an app tells the "events written" counter about its event log: the metric's name and help, its event types. */
export interface EventLogVocabulary<Type extends string> {
  /** e.g. `todo_events_written_total`, `feedback_events_written_total`. */
  name: string;
  help: string;
  /** Every type the app writes (its webhook catalogue): each series exists from the start, at 0. */
  eventTypes: readonly Type[];
}

/** Counts an app's events as they commit. */
export interface EventsWritten<Type extends string> {
  /** After the change's commit: `count` events of `type` were written to the event log (0: nothing). */
  written(type: Type, count?: number): void;
}

/**
 * The counter of an app's event log (its webhooks' outbox), by event type (label `type`): one home for both apps,
 * each passing its vocabulary. Every caller with the same name shares one counter (AppMetrics answers the
 * registered one), so each service that commits events may ask for it.
 */
export function eventsWrittenCounter<Type extends string>(metrics: AppMetrics, vocabulary: EventLogVocabulary<Type>): EventsWritten<Type> {
  const counter = metrics.counter({ name: vocabulary.name, help: vocabulary.help, labelNames: ['type'] });
  for (const type of vocabulary.eventTypes) counter.inc({ type }, 0);
  return {
    written(type, count = 1) {
      if (count > 0) counter.inc({ type }, count);
    },
  };
}
