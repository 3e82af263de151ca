import { Injectable } from '@nestjs/common';
import { Database } from '#libs/database';

/** The event log's upkeep (the rows themselves are written by the changes' repositories). */
@Injectable()
export class FeedbackEventsRepository {
  constructor(private readonly sql: Database) {}

  /** Deletes up to `batch` events older than `hours`; answers how many. */
  async sweep(hours: number, batch: number): Promise<number> {
    const rows = await this.sql.query(
      `DELETE FROM feedback_events WHERE id IN (SELECT id FROM feedback_events WHERE created_at < now() - make_interval(hours => $1) LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING 1`,
      [hours, batch],
    );
    return rows.length;
  }

}
