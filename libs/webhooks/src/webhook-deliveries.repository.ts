import { Injectable } from '@nestjs/common';
import { Database } from '#libs/database';

type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** A row of `webhook_deliveries`, as read by WEBHOOK_DELIVERY_COLUMNS. */
export interface WebhookDeliveryRow {
  id: string;
  endpointId: string;
  ownerKind: string;
  ownerId: string;
  eventId: string;
  eventType: string;
  occurredAt: Date;
  payload: unknown;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastResponseCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date;
  createdAt: Date;
  completedAt: Date | null;
}

export const WEBHOOK_DELIVERY_COLUMNS = `id, endpoint_id AS "endpointId", owner_kind AS "ownerKind", owner_id AS "ownerId", event_id AS "eventId",
  event_type AS "eventType", occurred_at AS "occurredAt", payload, status, attempts, last_response_code AS "lastResponseCode",
  last_error AS "lastError", next_attempt_at AS "nextAttemptAt", created_at AS "createdAt", completed_at AS "completedAt"`;

/** A claimed delivery with what sending it needs: its endpoint's URL and signing secrets. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  occurredAt: Date;
  payload: unknown;
  attempts: number;
  url: string;
  secret: string;
  previousSecret: string | null;
}

/** Every query on an owner's deliveries takes the owner (kind, id) first. */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly sql: Database) {}

  /** One delivery outside the event log (a test event) to one endpoint of the owner; undefined when the endpoint is not theirs. */
  async insertFor(ownerKind: string, ownerId: string, endpointId: string, eventId: string, eventType: string, payload: unknown): Promise<WebhookDeliveryRow | undefined> {
    const rows = await this.sql.query<WebhookDeliveryRow>(
      `INSERT INTO webhook_deliveries (endpoint_id, owner_kind, owner_id, event_id, event_type, occurred_at, payload)
       SELECT id, owner_kind, owner_id, $4, $5, now(), $6 FROM webhook_endpoints WHERE owner_kind = $1 AND owner_id = $2 AND id = $3
       RETURNING ${WEBHOOK_DELIVERY_COLUMNS}`,
      [ownerKind, ownerId, endpointId, eventId, eventType, JSON.stringify(payload)],
    );
    return rows[0];
  }

  async listOf(ownerKind: string, ownerId: string, endpointId: string, limit: number): Promise<WebhookDeliveryRow[]> {
    return this.sql.query<WebhookDeliveryRow>(
      `SELECT ${WEBHOOK_DELIVERY_COLUMNS} FROM webhook_deliveries WHERE owner_kind = $1 AND owner_id = $2 AND endpoint_id = $3 ORDER BY created_at DESC, id DESC LIMIT $4`,
      [ownerKind, ownerId, endpointId, limit],
    );
  }

  /** Queues the delivery again now (a fresh round of retries); undefined when it is not the owner's. */
  async replay(ownerKind: string, ownerId: string, deliveryId: string): Promise<WebhookDeliveryRow | undefined> {
    const rows = await this.sql.query<WebhookDeliveryRow>(
      `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = now(), completed_at = NULL
       WHERE owner_kind = $1 AND owner_id = $2 AND id = $3 RETURNING ${WEBHOOK_DELIVERY_COLUMNS}`,
      [ownerKind, ownerId, deliveryId],
    );
    return rows[0];
  }

  /** Queues again every finished delivery of the endpoint created since `since`; answers how many. */
  async replaySince(ownerKind: string, ownerId: string, endpointId: string, since: Date): Promise<number> {
    const rows = await this.sql.query(
      `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = now(), completed_at = NULL
       WHERE owner_kind = $1 AND owner_id = $2 AND endpoint_id = $3 AND created_at >= $4 AND status <> 'pending' RETURNING 1`,
      [ownerKind, ownerId, endpointId, since],
    );
    return rows.length;
  }

  /**
   * Claims up to `limit` due deliveries of enabled endpoints (SKIP LOCKED: replicas claim disjoint sets) and moves
   * each one's next attempt `leaseMs` ahead, counting the attempt: a replica that dies mid-send leaves it to be
   * claimed again once the lease has passed (at-least-once). The secret of a finished rotation is not handed out.
   */
  async claimDue(ownerKind: string, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    return this.sql.query<ClaimedDelivery>(
      `WITH due AS (
         SELECT delivery.id FROM webhook_deliveries delivery JOIN webhook_endpoints endpoint ON endpoint.id = delivery.endpoint_id AND endpoint.enabled
         WHERE delivery.owner_kind = $1 AND delivery.status = 'pending' AND delivery.next_attempt_at <= now()
         ORDER BY delivery.next_attempt_at, delivery.created_at LIMIT $2 FOR UPDATE OF delivery SKIP LOCKED
       )
       UPDATE webhook_deliveries delivery SET attempts = delivery.attempts + 1, next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
       FROM due, webhook_endpoints endpoint WHERE delivery.id = due.id AND endpoint.id = delivery.endpoint_id
       RETURNING delivery.id, delivery.endpoint_id AS "endpointId", delivery.event_id AS "eventId", delivery.event_type AS "eventType",
         delivery.occurred_at AS "occurredAt", delivery.payload, delivery.attempts, endpoint.url, endpoint.secret,
         CASE WHEN endpoint.previous_secret_expires_at > now() THEN endpoint.previous_secret END AS "previousSecret"`,
      [ownerKind, limit, leaseMs],
    );
  }

  /** Hands claimed deliveries back unattempted: the claim's attempt is uncounted and they are due again now. */
  async release(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.sql.query(`UPDATE webhook_deliveries SET attempts = attempts - 1, next_attempt_at = now() WHERE id = ANY($1::uuid[]) AND status = 'pending'`, [ids]);
  }

  /** Marks deliveries delivered, each with its receiver's status code (`ids[i]` answered `responseCodes[i]`). */
  async markDeliveredMany(ids: string[], responseCodes: number[]): Promise<void> {
    await this.sql.query(
      `UPDATE webhook_deliveries delivery SET status = 'delivered', last_response_code = answered.code, last_error = NULL, completed_at = now()
       FROM unnest($1::uuid[], $2::int[]) AS answered (id, code) WHERE delivery.id = answered.id`,
      [ids, responseCodes],
    );
  }

  async markRetry(id: string, responseCode: number | null, error: string, delayMs: number): Promise<void> {
    await this.sql.query(
      `UPDATE webhook_deliveries SET last_response_code = $2, last_error = $3, next_attempt_at = now() + make_interval(secs => $4::double precision / 1000) WHERE id = $1`,
      [id, responseCode, error, delayMs],
    );
  }

  async markFailed(id: string, responseCode: number | null, error: string): Promise<void> {
    await this.sql.query(`UPDATE webhook_deliveries SET status = 'failed', last_response_code = $2, last_error = $3, completed_at = now() WHERE id = $1`, [id, responseCode, error]);
  }

  /** Deletes up to `batch` deliveries older than `days` days; answers how many. */
  async sweep(days: number, batch: number): Promise<number> {
    const rows = await this.sql.query(
      `DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE created_at < now() - make_interval(days => $1) LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING 1`,
      [days, batch],
    );
    return rows.length;
  }

  /** Pending deliveries of the owner kind and the age in seconds of the oldest one that is due (metrics). */
  async queueStats(ownerKind: string): Promise<{ depth: number; oldestSeconds: number }> {
    const [row] = await this.sql.query<{ depth: number; oldestSeconds: number }>(
      `SELECT count(*)::int AS depth, coalesce(extract(epoch FROM now() - min(created_at) FILTER (WHERE next_attempt_at <= now())), 0)::float8 AS "oldestSeconds"
       FROM webhook_deliveries WHERE owner_kind = $1 AND status = 'pending'`,
      [ownerKind],
    );
    return row;
  }
}
