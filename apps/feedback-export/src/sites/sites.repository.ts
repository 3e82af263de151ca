import { Injectable } from '@nestjs/common';
import { Database } from '#libs/database';

export interface SiteRow {
  id: string;
  ownerId: string;
  name: string;
  slug: string;
  siteKey: string;
  createdAt: Date;
  updatedAt: Date;
  readTokenCreatedAt: Date | null;
  writeTokenCreatedAt: Date | null;
}

/** What the widget's endpoint needs of a site: its ids and, when the owner made one, its sealed identity secret. */
export interface WidgetSite {
  id: string;
  ownerId: string;
  identitySecretSealed: string | null;
}

const SITE_COLUMNS = `
  s.id, s.owner_id AS "ownerId", s.name, s.slug, s.site_key AS "siteKey", s.created_at AS "createdAt", s.updated_at AS "updatedAt",
  (SELECT t.created_at FROM feedback_tokens t WHERE t.site_id = s.id AND t.kind = 'read') AS "readTokenCreatedAt",
  (SELECT t.created_at FROM feedback_tokens t WHERE t.site_id = s.id AND t.kind = 'write') AS "writeTokenCreatedAt"`;

/** Sites and their export tokens. Every query on an owner's rows takes the owner id first. */
@Injectable()
export class SitesRepository {
  constructor(private readonly sql: Database) {}

  listByOwner(ownerId: string): Promise<SiteRow[]> {
    return this.sql.query(`SELECT ${SITE_COLUMNS} FROM sites s WHERE s.owner_id = $1 ORDER BY s.created_at, s.id`, [ownerId]);
  }

  async findOwned(ownerId: string, siteId: string): Promise<SiteRow | undefined> {
    const rows: SiteRow[] = await this.sql.query(`SELECT ${SITE_COLUMNS} FROM sites s WHERE s.owner_id = $1 AND s.id = $2`, [ownerId, siteId]);
    return rows[0];
  }

  async findBySiteKey(siteKey: string): Promise<WidgetSite | undefined> {
    const rows = await this.sql.query<WidgetSite>(
      `SELECT id, owner_id AS "ownerId", identity_secret_sealed AS "identitySecretSealed" FROM sites WHERE site_key = $1`,
      [siteKey],
    );
    return rows[0];
  }

  /** Who owns the site and its name, whoever asks (the webhook engine's mail about the site's disabled endpoint); undefined when it is gone. */
  async ownerAndName(siteId: string): Promise<{ ownerId: string; name: string } | undefined> {
    const rows = await this.sql.query<{ ownerId: string; name: string }>(`SELECT owner_id AS "ownerId", name FROM sites WHERE id = $1`, [siteId]);
    return rows[0];
  }

  /** Replaces the site's sealed identity secret in one statement (the old one stops at once); false when the site is not the owner's. */
  async replaceIdentitySecret(ownerId: string, siteId: string, sealed: string): Promise<boolean> {
    const rows = await this.sql.query(
      `UPDATE sites SET identity_secret_sealed = $3, identity_secret_created_at = now() WHERE owner_id = $1 AND id = $2 RETURNING id`,
      [ownerId, siteId, sealed],
    );
    return rows.length > 0;
  }

  /** Slugs of the owner equal to `base` or of the form `base-<n>`. */
  async slugsLike(ownerId: string, base: string): Promise<string[]> {
    const rows: Array<{ slug: string }> = await this.sql.query(
      `SELECT slug FROM sites WHERE owner_id = $1 AND (slug = $2 OR slug LIKE $3)`,
      [ownerId, base, `${base}-%`],
    );
    return rows.map((row) => row.slug);
  }

  /**
   * Inserts the site unless the owner already has `maxSites`: undefined then. Atomic against
   * concurrent creates of one owner: the owner's row is locked first (FOR NO KEY UPDATE: rows
   * referencing the user are not held up), and the count runs in a later statement, whose snapshot
   * sees every site a create that held the lock before committed.
   */
  insertWithinQuota(ownerId: string, site: { name: string; slug: string; siteKey: string }, maxSites: number): Promise<string | undefined> {
    return this.sql.transaction(async (tx) => {
      await tx.query(`SELECT id FROM users WHERE id = $1 FOR NO KEY UPDATE`, [ownerId]);
      const rows = await tx.query<{ id: string }>(
        `INSERT INTO sites (owner_id, name, slug, site_key)
         SELECT $1, $2, $3, $4 WHERE (SELECT count(*) FROM sites WHERE owner_id = $1) < $5
         RETURNING id`,
        [ownerId, site.name, site.slug, site.siteKey, maxSites],
      );
      return rows[0]?.id;
    });
  }

  async rename(ownerId: string, siteId: string, name: string): Promise<boolean> {
    const rows = await this.sql.query(`UPDATE sites SET name = $3, updated_at = now() WHERE owner_id = $1 AND id = $2 RETURNING id`, [ownerId, siteId, name]);
    return rows.length > 0;
  }

  /** Deletes the site; its tokens, feedback (and question batches) go with it by cascade. */
  async delete(ownerId: string, siteId: string): Promise<boolean> {
    const rows = await this.sql.query(`DELETE FROM sites WHERE owner_id = $1 AND id = $2 RETURNING id`, [ownerId, siteId]);
    return rows.length > 0;
  }

  /**
   * Replaces the site's token of `kind` in one statement: the old hash is gone when this
   * commits, so the old token stops at once. False when the site is not the owner's.
   */
  async replaceSiteToken(ownerId: string, siteId: string, kind: 'read' | 'write', tokenHash: string): Promise<boolean> {
    const rows = await this.sql.query(
      `INSERT INTO feedback_tokens (owner_id, site_id, kind, token_hash)
       SELECT s.owner_id, s.id, $3, $4 FROM sites s WHERE s.owner_id = $1 AND s.id = $2
       ON CONFLICT (site_id, kind) WHERE site_id IS NOT NULL
       DO UPDATE SET id = gen_random_uuid(), token_hash = EXCLUDED.token_hash, created_at = now()
       RETURNING id`,
      [ownerId, siteId, kind, tokenHash],
    );
    return rows.length > 0;
  }

  /** Replaces (or creates) the account's portfolio token in one statement. */
  async replacePortfolioToken(ownerId: string, tokenHash: string): Promise<void> {
    await this.sql.query(
      `INSERT INTO feedback_tokens (owner_id, site_id, kind, token_hash) VALUES ($1, NULL, 'portfolio', $2)
       ON CONFLICT (owner_id) WHERE kind = 'portfolio'
       DO UPDATE SET id = gen_random_uuid(), token_hash = EXCLUDED.token_hash, created_at = now()`,
      [ownerId, tokenHash],
    );
  }

  /** When the account's portfolio token was issued; null when it has none. */
  async portfolioTokenCreatedAt(ownerId: string): Promise<Date | null> {
    const rows = await this.sql.query<{ createdAt: Date }>(`SELECT created_at AS "createdAt" FROM feedback_tokens WHERE owner_id = $1 AND kind = 'portfolio'`, [ownerId]);
    return rows[0]?.createdAt ?? null;
  }

  /** Every site of the owner as the portfolio lists them. */
  listEntries(ownerId: string): Promise<Array<{ id: string; slug: string; name: string }>> {
    return this.sql.query(`SELECT id, slug, name FROM sites WHERE owner_id = $1 ORDER BY created_at, id`, [ownerId]);
  }
}
