import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { executorOf, type SqlExecutor } from '#libs/database';

/** A feedback site as the consent page lists it. */
export interface ConsentSite {
  id: string;
  name: string;
  slug: string;
}

/** The signed-in account's feedback sites (one database for both services), for the consent page's choice. */
@Injectable()
export class OAuthConsentSitesRepository {
  /** Every statement of this repository (the data layer's one seam: rows in one shape, typed). */
  private readonly sql: SqlExecutor;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.sql = executorOf(this.dataSource.manager);
  }

  listSites(ownerId: string): Promise<ConsentSite[]> {
    return this.sql.query(`SELECT id, name, slug FROM sites WHERE owner_id = $1 ORDER BY created_at, id`, [ownerId]);
  }
}
