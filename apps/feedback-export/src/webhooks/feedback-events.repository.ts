import { Injectable } from '@nestjs/common';
import { Database } from '#libs/database';

/** The event log's upkeep, and where to reach a site's owner (the rows themselves are written by the changes' repositories). */
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

  /** The owner's e-mail and the site's name, or undefined when the site is gone. */
  async ownerOfSite(siteId: string): Promise<{ email: string; siteName: string } | undefined> {
    const rows = await this.sql.query<{ email: string; siteName: string }>(`SELECT u.email, s.name AS "siteName" FROM sites s JOIN users u ON u.id = s.owner_id WHERE s.id = $1`, [siteId]);
    return rows[0];
  }
}
