import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { PeriodicTask } from '#libs/common';
import { FeedbackEventsRepository } from './feedback-events.repository.js';

/** Events are kept this long (each delivery carries its own copy of the payload; the feedback cursor export is the replay). */
const FEEDBACK_EVENT_RETENTION_HOURS = 24;
const SWEEP_INTERVAL_MS = 60 * 60_000;
const SWEEP_BATCH = 1000;

/** Deletes `feedback_events` rows older than 24 h, hourly, on every replica (SKIP LOCKED batches). */
@Injectable()
export class FeedbackEventsSweeper implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(FeedbackEventsSweeper.name);
  private readonly task = new PeriodicTask('Sweep of old feedback events', SWEEP_INTERVAL_MS, () => this.sweep(), this.logger);

  constructor(private readonly events: FeedbackEventsRepository) {}

  onModuleInit(): void {
    this.task.start();
  }

  onModuleDestroy(): void {
    this.task.stop();
  }

  async sweep(): Promise<number> {
    let removed = 0;
    for (;;) {
      const count = await this.events.sweep(FEEDBACK_EVENT_RETENTION_HOURS, SWEEP_BATCH);
      removed += count;
      if (count < SWEEP_BATCH) return removed;
    }
  }
}
