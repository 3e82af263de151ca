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
   * How the owner of an endpoint disabled for failing is mailed (once per disablement, by the replica whose UPDATE
   * disabled it): the app knows who owns its endpoints and where one is switched back on. No mail when absent.
   */
  disabledEndpointMail?: DisabledEndpointMailWords;
}

/** An app's part of the mail to the owner of an endpoint disabled for failing; WebhookDisabledMailService writes the rest. */
interface DisabledEndpointMailWords {
  subject: string;
  /**
   * The owner's address, and `ownerName` when the owner is not the account itself (`your site Checkout shop`);
   * undefined when the owner is gone (nobody is mailed).
   */
  recipientOf(ownerId: string): Promise<{ email: string; ownerName?: string } | undefined>;
  /** How the owner switches it back on: `PATCH https://…/api/v1/webhooks/<id> with {"enabled": true}`. */
  reEnableHow(endpoint: DisabledWebhookEndpoint): string;
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
