import type pg from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';

/** The pool TypeORM (and PreparedQueries) run on. */
export function mainPoolOf(dataSource: DataSource): pg.Pool {
  return (dataSource.driver as PostgresDriver).master as pg.Pool;
}

/**
 * Which PostgreSQL the apps talk to: a real server, or the embedded database (PGlite behind
 * pglite-socket), which serves every connection from one backend session. Prepared statement
 * names and LISTEN/NOTIFY depend on it. Asked once (version() names PGlite), then remembered.
 */
export class DatabaseFlavour {
  private asked?: Promise<boolean>;
  /** The answer once known, so hot paths need no await. */
  knownEmbedded?: boolean;

  constructor(private readonly pool: () => pg.Pool) {}

  static forDataSource(dataSource: DataSource): DatabaseFlavour {
    return new DatabaseFlavour(() => mainPoolOf(dataSource));
  }

  isEmbedded(): Promise<boolean> {
    this.asked ??= this.pool()
      .query<{ version: string }>('SELECT version() AS version')
      .then(
        (result) => (this.knownEmbedded = /PGlite/i.test(result.rows[0]?.version ?? '')),
        (error: unknown) => {
          this.asked = undefined; // the database is unreachable: ask again next time
          throw error;
        },
      );
    return this.asked;
  }
}
