import { Injectable } from '@nestjs/common';
import { Database, type Transaction } from '#libs/database';

/** A row of `webhook_endpoints`, as read by WEBHOOK_ENDPOINT_COLUMNS. */
export interface WebhookEndpointRow {
  id: string;
  ownerKind: string;
  ownerId: string;
  url: string;
  eventTypes: string[];
  description: string;
  enabled: boolean;
  disabledReason: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  failureStreak: number;
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const WEBHOOK_ENDPOINT_COLUMNS = `id, owner_kind AS "ownerKind", owner_id AS "ownerId", url, event_types AS "eventTypes", description, enabled,
  disabled_reason AS "disabledReason", secret, previous_secret AS "previousSecret", previous_secret_expires_at AS "previousSecretExpiresAt",
  failure_streak AS "failureStreak", failing_since AS "failingSince", created_at AS "createdAt", updated_at AS "updatedAt"`;

export interface WebhookEndpointInput {
  url: string;
  eventTypes: string[];
  description: string;
  enabled: boolean;
}

/** Every query takes the owner (kind, id) first: another owner's endpoint does not exist here. */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(private readonly sql: Database) {}

  /**
   * Inserts the endpoint unless the owner already has `max`: counted under a transaction-scoped advisory lock on
   * the owner (the lib knows no owner table to lock a row of), so two creates cannot both pass the count.
   */
  async insertWithinQuota(ownerKind: string, ownerId: string, input: WebhookEndpointInput, secret: string, max: number): Promise<WebhookEndpointRow | undefined> {
    return this.sql.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || $1 || ':' || $2, 0))`, [ownerKind, ownerId]);
      const [{ count }] = await tx.query<{ count: number }>(`SELECT count(*)::int AS count FROM webhook_endpoints WHERE owner_kind = $1 AND owner_id = $2`, [ownerKind, ownerId]);
      if (count >= max) return undefined;
      const rows = await tx.query<WebhookEndpointRow>(
        `INSERT INTO webhook_endpoints (owner_kind, owner_id, url, event_types, description, enabled, secret) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${WEBHOOK_ENDPOINT_COLUMNS}`,
        [ownerKind, ownerId, input.url, input.eventTypes, input.description, input.enabled, secret],
      );
      return rows[0];
    });
  }

  async list(ownerKind: string, ownerId: string): Promise<WebhookEndpointRow[]> {
    return this.sql.query<WebhookEndpointRow>(`SELECT ${WEBHOOK_ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE owner_kind = $1 AND owner_id = $2 ORDER BY created_at, id`, [ownerKind, ownerId]);
  }

  async find(ownerKind: string, ownerId: string, id: string): Promise<WebhookEndpointRow | undefined> {
    const rows = await this.sql.query<WebhookEndpointRow>(`SELECT ${WEBHOOK_ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE owner_kind = $1 AND owner_id = $2 AND id = $3`, [ownerKind, ownerId, id]);
    return rows[0];
  }

  /** Every endpoint of each of the owners (one kind) given, by owner then age: an export listing another kind's endpoints. */
  async listOfOwners(ownerKind: string, ownerIds: string[]): Promise<WebhookEndpointRow[]> {
    if (ownerIds.length === 0) return [];
    return this.sql.query<WebhookEndpointRow>(
      `SELECT ${WEBHOOK_ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE owner_kind = $1 AND owner_id = ANY($2::uuid[]) ORDER BY owner_id, created_at, id`,
      [ownerKind, ownerIds],
    );
  }

  /** Applies the given changes; enabling again clears the reason it was disabled and its failure streak. */
  async update(ownerKind: string, ownerId: string, id: string, changes: Partial<WebhookEndpointInput>): Promise<WebhookEndpointRow | undefined> {
    const params: unknown[] = [ownerKind, ownerId, id];
    const sets = ['updated_at = now()'];
    if (changes.url !== undefined) sets.push(`url = $${params.push(changes.url)}`);
    if (changes.eventTypes !== undefined) sets.push(`event_types = $${params.push(changes.eventTypes)}`);
    if (changes.description !== undefined) sets.push(`description = $${params.push(changes.description)}`);
    if (changes.enabled !== undefined) {
      sets.push(`enabled = $${params.push(changes.enabled)}`);
      if (changes.enabled) sets.push(`disabled_reason = NULL, failure_streak = 0, failing_since = NULL`);
      else sets.push(`disabled_reason = 'disabled by its owner'`);
    }
    const rows = await this.sql.query<WebhookEndpointRow>(
      `UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE owner_kind = $1 AND owner_id = $2 AND id = $3 RETURNING ${WEBHOOK_ENDPOINT_COLUMNS}`,
      params,
    );
    return rows[0];
  }

  async delete(ownerKind: string, ownerId: string, id: string): Promise<boolean> {
    const rows = await this.sql.query(`DELETE FROM webhook_endpoints WHERE owner_kind = $1 AND owner_id = $2 AND id = $3 RETURNING 1`, [ownerKind, ownerId, id]);
    return rows.length > 0;
  }

  /** The new secret signs from now on; the current one keeps signing beside it until `previousUntil`. */
  async rotate(ownerKind: string, ownerId: string, id: string, secret: string, previousValidMs: number): Promise<WebhookEndpointRow | undefined> {
    const rows = await this.sql.query<WebhookEndpointRow>(
      `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = now() + make_interval(secs => $5::double precision / 1000), secret = $4, updated_at = now()
       WHERE owner_kind = $1 AND owner_id = $2 AND id = $3 RETURNING ${WEBHOOK_ENDPOINT_COLUMNS}`,
      [ownerKind, ownerId, id, secret, previousValidMs],
    );
    return rows[0];
  }

  /** Inside the owner's deletion: its endpoints (and, by cascade, their deliveries). */
  async deleteAllOf(tx: Transaction, ownerKind: string, ownerId: string): Promise<void> {
    await tx.query(`DELETE FROM webhook_endpoints WHERE owner_kind = $1 AND owner_id = $2`, [ownerKind, ownerId]);
  }

  // --- Outcomes of deliveries (the dispatcher; no owner at hand, the endpoint id comes from a claimed delivery) ---

  /** A success ends each endpoint's failure streak (rows already at 0 are not written). */
  async recordSuccesses(endpointIds: string[]): Promise<void> {
    await this.sql.query(`UPDATE webhook_endpoints SET failure_streak = 0, failing_since = NULL WHERE id = ANY($1::uuid[]) AND failure_streak <> 0`, [endpointIds]);
  }

  async recordFailure(endpointId: string): Promise<void> {
    await this.sql.query(`UPDATE webhook_endpoints SET failure_streak = failure_streak + 1, failing_since = coalesce(failing_since, now()) WHERE id = $1`, [endpointId]);
  }

  async disable(endpointId: string, reason: string): Promise<void> {
    await this.sql.query(`UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2, updated_at = now() WHERE id = $1`, [endpointId, reason]);
  }

  /**
   * Disables the endpoint if it is still enabled and failing since at least `afterMs` ago; answers the endpoint when
   * this call disabled it. One statement decides: of replicas racing on the same endpoint, one UPDATE matches (the
   * others re-check `enabled` after its commit and match nothing), so the owner is told once.
   */
  async disableIfFailingSince(endpointId: string, afterMs: number, reason: string): Promise<WebhookEndpointRow | undefined> {
    const rows = await this.sql.query<WebhookEndpointRow>(
      `UPDATE webhook_endpoints SET enabled = false, disabled_reason = $3, updated_at = now()
       WHERE id = $1 AND enabled AND failing_since <= now() - make_interval(secs => $2::double precision / 1000) RETURNING ${WEBHOOK_ENDPOINT_COLUMNS}`,
      [endpointId, afterMs, reason],
    );
    return rows[0];
  }

  /** Endpoints of this owner kind that are failing now, and the longest streak among them (metrics). */
  async failureStats(ownerKind: string): Promise<{ failing: number; longestStreak: number }> {
    const [row] = await this.sql.query<{ failing: number; longestStreak: number }>(
      `SELECT count(*) FILTER (WHERE failure_streak > 0)::int AS failing, coalesce(max(failure_streak), 0)::int AS "longestStreak" FROM webhook_endpoints WHERE owner_kind = $1 AND enabled`,
      [ownerKind],
    );
    return row;
  }
}
