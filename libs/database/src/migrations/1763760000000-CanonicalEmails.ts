import { Logger } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `canonicalEmail` (libs/accounts/src/canonical-email.ts) as of this migration, frozen here
 * so that a later change of the rule cannot change what this migration did.
 */
function canonicalAtThisVersion(email: string): string {
  return email.trim().normalize('NFKC').toLowerCase().normalize('NFKC');
}

const BATCH = 1000;

/**
 * Accounts are identified by one canonical e-mail computed by the application
 * (`users.email_canonical`, unique) instead of the database's `lower(email)`, whose case
 * mapping depends on the server's collation and disagreed with the login limiter's.
 *
 * Existing rows get their canonical form here. Two accounts whose addresses were distinct
 * under `lower()` but are one address now (fullwidth or ligature look-alikes, composed and
 * decomposed accents) cannot both keep it: the oldest account keeps it, and each younger
 * one is parked on `<canonical>#<user id>` (no typed address reaches it, so it can no longer
 * sign in by e-mail, but its data and live sessions stay). They are logged for support.
 */
export class CanonicalEmails1763760000000 implements MigrationInterface {
  name = 'CanonicalEmails1763760000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE users ADD COLUMN email_canonical text`);
    const taken = new Set<string>();
    const parked: string[] = [];
    let after: { joined: string; id: string } | undefined;
    for (;;) {
      const rows: Array<{ id: string; email: string; joined: string }> = await queryRunner.query(
        `SELECT id, email, date_joined::text AS joined FROM users
         WHERE $1::timestamptz IS NULL OR (date_joined, id) > ($1::timestamptz, $2::uuid)
         ORDER BY date_joined, id LIMIT ${BATCH}`,
        [after?.joined ?? null, after?.id ?? null],
      );
      if (rows.length === 0) break;
      const ids: string[] = [];
      const forms: string[] = [];
      for (const row of rows) {
        let form = canonicalAtThisVersion(row.email);
        if (taken.has(form)) {
          parked.push(row.id);
          form = `${form}#${row.id}`;
        }
        taken.add(form);
        ids.push(row.id);
        forms.push(form);
      }
      await queryRunner.query(
        `UPDATE users SET email_canonical = v.form FROM unnest($1::uuid[], $2::text[]) AS v(id, form) WHERE users.id = v.id`,
        [ids, forms],
      );
      after = { joined: rows[rows.length - 1].joined, id: rows[rows.length - 1].id };
    }
    if (parked.length > 0) {
      new Logger('Migrations').warn({ userIds: parked }, `${parked.length} account(s) share a canonical e-mail with an older account; they can no longer sign in by e-mail`);
    }
    await queryRunner.query(`ALTER TABLE users ALTER COLUMN email_canonical SET NOT NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX users_email_canonical_key ON users (email_canonical)`);
    await queryRunner.query(`DROP INDEX users_email_lower_key`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email))`);
    await queryRunner.query(`DROP INDEX users_email_canonical_key`);
    await queryRunner.query(`ALTER TABLE users DROP COLUMN email_canonical`);
  }
}
