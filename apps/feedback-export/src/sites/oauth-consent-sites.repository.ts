import { Injectable } from '@nestjs/common';
import { Database } from '#libs/database';

/** A feedback site as the consent page lists it. */
export interface ConsentSite {
  id: string;
  name: string;
  slug: string;
}

/** The signed-in account's feedback sites (one database for both services), for the consent page's choice. */
@Injectable()
export class OAuthConsentSitesRepository {
  constructor(private readonly sql: Database) {}

  listSites(ownerId: string): Promise<ConsentSite[]> {
    return this.sql.query(`SELECT id, name, slug FROM sites WHERE owner_id = $1 ORDER BY created_at, id`, [ownerId]);
  }
}
