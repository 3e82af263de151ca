import type { DataSource } from 'typeorm';
import { pendingMigrations } from './run-migrations.js';

/** What health checks ask the database, so they need no DataSource of their own. */
export class DatabaseProbe {
  constructor(private readonly dataSource: DataSource) {}

  /** Resolves when the database answers a trivial statement. */
  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }

  /** The names of this build's migrations the database has not applied. */
  pendingMigrations(): Promise<string[]> {
    return pendingMigrations(this.dataSource);
  }
}
