/**
 * What an app tells the webhook engine about itself: the owner kind its endpoints belong to (the first argument of
 * its event log's `webhook_enqueue` trigger), its event catalogue with a sample payload per type (the "send test
 * event" route sends it), and its outbound switches. libs/webhooks names no app: this is all it knows of one.
 */
export interface WebhookEngineOptions {
  /** e.g. `account` (todo-api: owner id = user id); another app uses its own (`site`). */
  ownerKind: string;
  /** Every event type the app emits, each with a sample `data` for test events. */
  eventCatalogue: Readonly<Record<string, unknown>>;
  /** Loopback receivers allowed (a test/development switch that loadConfig refuses in production). */
  allowLoopback: boolean;
  /** Only https:// endpoints (production). */
  httpsOnly: boolean;
  /** Most endpoints one owner may have. */
  maxEndpointsPerOwner: number;
  /** How the quota refusal names an owner (`At most 10 webhook endpoints per site`); `account` when absent. */
  ownerNoun?: string;
  /**
   * An endpoint whose attempts have all failed since the first failure of its streak at least this long ago is
   * disabled at its next failed attempt (WEBHOOK_DISABLE_AFTER_MS, 5 days by default).
   */
  disableAfterFailingMs: number;
  /** Connect + answer of one attempt (5 s unless shortened); the claim lease is derived from it. */
  attemptTimeoutMs?: number;
  /**
   * Tells the owner that an endpoint was disabled for failing (the app knows who the owner is and how to reach
   * them: todo-api mails the account). Called once per disablement, by the replica whose UPDATE disabled it.
   */
  notifyOwnerOfDisabledEndpoint?: (notice: DisabledWebhookEndpoint) => Promise<void>;
}

/** An endpoint the engine has just disabled because it kept failing. */
export interface DisabledWebhookEndpoint {
  id: string;
  ownerId: string;
  url: string;
  description: string;
  reason: string;
  failingSince: Date;
  failureStreak: number;
}

export const WEBHOOK_ENGINE_OPTIONS = Symbol('WEBHOOK_ENGINE_OPTIONS');
