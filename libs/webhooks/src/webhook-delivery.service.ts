import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { AppMetrics, BackgroundWork, DependencyOutages, guardedFetch, OutboundAddressRefusedError, PeriodicTask, unavailableDependencyOf } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { WebhookDeliveriesRepository, type ClaimedDelivery } from './webhook-deliveries.repository.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';
import { WebhookDisabledMailService } from './webhook-disabled-mail.service.js';
import { WEBHOOK_ENGINE_OPTIONS, type WebhookEngineOptions } from './webhook-engine.options.js';
import { receiverAgents } from './receiver-agents.js';
import { DEFAULT_RETRY_SCHEDULE_MS, retryDelayMs } from './webhook-retry-schedule.js';
import { signedWebhookHeaders, webhookSecretSealer, WebhookSigners } from './webhook-signing.js';

/** Connect + response headers + body, per attempt. */
const ATTEMPT_TIMEOUT_MS = 5_000;
/** The receiver's body is read to this many bytes at most (then dropped): only the status counts. */
const RESPONSE_BODY_CAP = 4096;
const CLAIM_BATCH = 50;
/**
 * A claimed delivery is claimable again after this long if its replica never reports (a crash): long enough for the
 * worst batch (all of it to one endpoint, sent one at a time, each attempt taking its whole timeout), so a slow
 * endpoint's deliveries are never claimed by a second replica while the first still works through them.
 */
const CLAIM_LEASE_MARGIN_MS = 10_000;
const DISPATCH_INTERVAL_MS = 1_000;
const SWEEP_INTERVAL_MS = 60 * 60_000;
const RETENTION_DAYS = 30;
const STATS_INTERVAL_MS = 15_000;
const SWEEP_BATCH = 1000;
const ERROR_TEXT_MAX = 300;

/** An endpoint's successful attempts of a batch not yet written (ids[i] answered codes[i]). */
interface DeliveredRun {
  endpointId: string;
  ids: string[];
  codes: number[];
}

/** What an attempt did; `gone` (410) and `disabled` (failing too long) stop sending to the endpoint. */
type Outcome = 'delivered' | 'retry' | 'failed' | 'gone' | 'disabled';

/**
 * The durable delivery queue's worker, on every replica: claims due deliveries with FOR UPDATE SKIP LOCKED (see
 * WebhookDeliveriesRepository.claimDue), sends each signed (Standard Webhooks) through guardedFetch, and records
 * the outcome: 2xx delivered; 410 Gone disables the endpoint; anything else (other status, timeout, refused
 * address, network error) is retried on the schedule (DEFAULT_RETRY_SCHEDULE_MS, with jitter), then `failed`; a
 * failure when the endpoint's streak began `disableAfterFailingMs` ago or more disables it and tells its owner.
 * Within one claimed batch an endpoint's deliveries go one at a time in claim order (oldest first); endpoints in
 * parallel. Deliveries older than 30 days are swept.
 */
@Injectable()
export class WebhookDeliveryService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(WebhookDeliveryService.name);
  private readonly dispatcher = new PeriodicTask('Webhook delivery', DISPATCH_INTERVAL_MS, () => this.inBackground(() => this.dispatchDue()), this.logger);
  private readonly sweeper = new PeriodicTask('Sweep of old webhook deliveries', SWEEP_INTERVAL_MS, () => this.sweep(), this.logger);
  private readonly statsRefresh = new PeriodicTask('Webhook queue figures', STATS_INTERVAL_MS, () => this.inBackground(() => this.refreshStats()), this.logger);
  private readonly stats = { depth: 0, oldestSeconds: 0, failing: 0, longestStreak: 0 };
  private dispatching?: Promise<number>;
  private readonly pendingNotices = new BackgroundWork();
  /** Delays before each retry; tests shorten it. */
  retryScheduleMs: readonly number[] = DEFAULT_RETRY_SCHEDULE_MS;
  /** Per-attempt timeout (WebhookEngineOptions.attemptTimeoutMs); tests shorten it. */
  attemptTimeoutMs: number;
  private readonly outcomes;
  private readonly disabledEndpoints;
  /** The endpoints' sealed signing secrets, each opened once (WebhookSigners). */
  private readonly signers: WebhookSigners;
  /**
   * Connections to receivers are kept alive and reused between attempts, and closed by us when idle a while
   * (receiverAgents). This engine's own pair, always used with its one `allowLoopback`, so a pooled connection only
   * ever goes to an address vetted under the same rule.
   */
  private readonly agents = receiverAgents();

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly endpoints: WebhookEndpointsRepository,
    @Inject(WEBHOOK_ENGINE_OPTIONS) private readonly options: WebhookEngineOptions,
    metrics: AppMetrics,
    private readonly outages: DependencyOutages,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly disabledMail: WebhookDisabledMailService,
  ) {
    this.signers = new WebhookSigners(webhookSecretSealer(config.jwtSecret));
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS;
    this.outcomes = metrics.counter({ name: 'webhook_deliveries_total', help: 'Webhook delivery attempts by outcome (delivered, retry, failed, gone)', labelNames: ['outcome'] });
    this.disabledEndpoints = metrics.counter({ name: 'webhook_endpoints_disabled_total', help: 'Webhook endpoints the engine disabled, by reason (gone: a 410; failing: failing too long)', labelNames: ['reason'] });
    // Read when scraped from figures a timer refreshes: a scrape never waits on (or fails with) the database.
    const stats = this.stats;
    metrics.gauge({
      name: 'webhook_queue_depth',
      help: 'Webhook deliveries waiting (pending, due or scheduled for a retry), as of the last refresh (every 15 s)',
      collect() {
        this.set(stats.depth);
      },
    });
    metrics.gauge({
      name: 'webhook_queue_oldest_pending_seconds',
      help: 'Age of the oldest due webhook delivery, in seconds (0 when none is due), as of the last refresh',
      collect() {
        this.set(stats.oldestSeconds);
      },
    });
    metrics.gauge({
      name: 'webhook_endpoints_failing',
      help: 'Enabled webhook endpoints whose last delivery attempt failed, as of the last refresh',
      collect() {
        this.set(stats.failing);
      },
    });
    metrics.gauge({
      name: 'webhook_endpoint_failure_streak_max',
      help: 'The longest run of failed attempts among enabled webhook endpoints, as of the last refresh',
      collect() {
        this.set(stats.longestStreak);
      },
    });
  }

  /** A timer's run: a database outage is reported once by DependencyOutages, not warned about every second. */
  private async inBackground(work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      const dependency = unavailableDependencyOf(error);
      if (!dependency) throw error;
      this.outages.suspect(dependency, error);
    }
  }

  /** Refreshes the queue and endpoint figures the gauges report (tests call it directly). */
  async refreshStats(): Promise<void> {
    const [queue, failures] = await Promise.all([this.deliveries.queueStats(this.options.ownerKind), this.endpoints.failureStats(this.options.ownerKind)]);
    Object.assign(this.stats, queue, failures);
  }

  onModuleInit(): void {
    this.dispatcher.start();
    this.sweeper.start();
    this.statsRefresh.start();
  }

  /** Stops the timers at once; a notice to an owner still being sent is finished before the process exits. */
  async onModuleDestroy(): Promise<void> {
    this.dispatcher.stop();
    this.sweeper.stop();
    this.statsRefresh.stop();
    this.agents.http.destroy();
    this.agents.https.destroy();
    await this.pendingNotices.settled();
  }

  /**
   * Sends every delivery due now, batch after batch, until none is left; answers how many attempts it made. A call
   * while one runs joins it (tests call this directly instead of waiting for the timer).
   */
  dispatchDue(): Promise<number> {
    this.dispatching ??= (async () => {
      let sent = 0;
      try {
        for (;;) {
          const leaseMs = CLAIM_BATCH * this.attemptTimeoutMs + CLAIM_LEASE_MARGIN_MS;
          const claimed = await this.deliveries.claimDue(this.options.ownerKind, CLAIM_BATCH, leaseMs);
          if (claimed.length === 0) return sent;
          await this.sendBatch(claimed);
          sent += claimed.length;
          if (claimed.length < CLAIM_BATCH) return sent;
        }
      } finally {
        this.dispatching = undefined;
      }
    })();
    return this.dispatching;
  }

  async sweep(): Promise<number> {
    let removed = 0;
    for (;;) {
      const count = await this.deliveries.sweep(RETENTION_DAYS, SWEEP_BATCH);
      removed += count;
      if (count < SWEEP_BATCH) return removed;
    }
  }

  /**
   * A claimed batch: each endpoint's deliveries one at a time in claim order, endpoints in parallel. Successes are
   * written together at the end (one UPDATE for the batch, one for the endpoints' streaks); an endpoint's own
   * successes are written first when one of its attempts fails, so its failure streak counts in order. A replica that
   * dies before writing them leaves them pending, to be sent again when the lease passes (at-least-once, as any crash).
   */
  private async sendBatch(claimed: ClaimedDelivery[]): Promise<void> {
    const byEndpoint = new Map<string, ClaimedDelivery[]>();
    for (const delivery of claimed) {
      const list = byEndpoint.get(delivery.endpointId) ?? [];
      list.push(delivery);
      byEndpoint.set(delivery.endpointId, list);
    }
    const delivered: DeliveredRun[] = [];
    await Promise.all(
      [...byEndpoint.values()].map(async (list) => {
        const run: DeliveredRun = { endpointId: list[0].endpointId, ids: [], codes: [] };
        delivered.push(run);
        await this.sendInOrder(list, run);
      }),
    );
    await this.recordDelivered(delivered);
  }

  private async sendInOrder(list: ClaimedDelivery[], run: DeliveredRun): Promise<void> {
    for (const [index, delivery] of list.entries()) {
      const sent = await this.send(delivery);
      if (sent.status !== null && sent.status >= 200 && sent.status < 300) {
        run.ids.push(delivery.id);
        run.codes.push(sent.status);
        continue;
      }
      await this.recordDelivered([run]);
      const outcome = await this.recordFailure(delivery, sent);
      // A 410 or a too-long failure streak disabled the endpoint: the rest of its batch is handed back unattempted
      // (held while it is disabled, due at once when its owner re-enables it).
      if (outcome === 'gone' || outcome === 'disabled') {
        await this.deliveries.release(list.slice(index + 1).map((held) => held.id));
        return;
      }
    }
  }

  /** Writes the runs' successes (and empties them): deliveries marked delivered, their endpoints' streaks reset. */
  private async recordDelivered(runs: DeliveredRun[]): Promise<void> {
    const done = runs.filter((run) => run.ids.length > 0);
    if (done.length === 0) return;
    const ids = done.flatMap((run) => run.ids.splice(0));
    const codes = done.flatMap((run) => run.codes.splice(0));
    await this.deliveries.markDeliveredMany(ids, codes);
    await this.endpoints.recordSuccesses(done.map((run) => run.endpointId));
    this.outcomes.inc({ outcome: 'delivered' }, ids.length);
  }

  /** One signed POST; answers the receiver's status (null when none came) and, unless 2xx, what went wrong. */
  private async send(delivery: ClaimedDelivery): Promise<{ status: number | null; error: string }> {
    const body = JSON.stringify({ type: delivery.eventType, timestamp: new Date(delivery.occurredAt).toISOString(), data: delivery.payload });
    const signers = [delivery.secret, delivery.previousSecret].flatMap((sealed) => (sealed ? (this.signers.signerOf(sealed) ?? []) : []));
    let status: number | null = null;
    try {
      // Sealed under another JWT_SECRET: nothing goes out unsigned; the attempt fails and retries until the owner rotates.
      if (signers.length === 0) throw new UnreadableSigningSecretError();
      const headers = { 'content-type': 'application/json', 'user-agent': 'todo-feedback-webhooks/1', ...signedWebhookHeaders(delivery.eventId, new Date(), body, signers) };
      const signal = AbortSignal.timeout(this.attemptTimeoutMs);
      const response = await guardedFetch(delivery.url, { method: 'POST', headers, body, signal }, { allowLoopback: this.options.allowLoopback, agents: this.agents });
      status = response.status;
      await drainCapped(response, RESPONSE_BODY_CAP);
      return { status, error: `HTTP ${status}` };
    } catch (caught) {
      return { status, error: describeFailure(caught) };
    }
  }

  /** A non-2xx answer or no answer: 410 disables the endpoint; anything else is retried on the schedule, then failed. */
  private async recordFailure(delivery: ClaimedDelivery, { status, error }: { status: number | null; error: string }): Promise<Outcome> {
    if (status === 410) {
      await this.deliveries.markFailed(delivery.id, status, 'the endpoint answered 410 Gone: disabled');
      await this.endpoints.disable(delivery.endpointId, 'the endpoint answered 410 Gone');
      this.disabledEndpoints.inc({ reason: 'gone' });
      this.outcomes.inc({ outcome: 'gone' });
      return 'gone';
    }
    await this.endpoints.recordFailure(delivery.endpointId);
    const delay = retryDelayMs(this.retryScheduleMs, delivery.attempts);
    if (delay === undefined) await this.deliveries.markFailed(delivery.id, status, error);
    else await this.deliveries.markRetry(delivery.id, status, error, delay);
    const outcome = delay === undefined ? 'failed' : 'retry';
    this.outcomes.inc({ outcome });
    return (await this.disableIfFailingTooLong(delivery.endpointId)) ? 'disabled' : outcome;
  }

  /**
   * After a failed attempt: an endpoint failing without a success for `disableAfterFailingMs` is disabled (its
   * waiting deliveries are held, as after a 410, until its owner re-enables it) and its owner told, once.
   */
  private async disableIfFailingTooLong(endpointId: string): Promise<boolean> {
    const afterMs = this.options.disableAfterFailingMs;
    const reason = `every delivery attempt failed for ${describeDuration(afterMs)} without a success`;
    const endpoint = await this.endpoints.disableIfFailingSince(endpointId, afterMs, reason);
    if (!endpoint) return false;
    this.disabledEndpoints.inc({ reason: 'failing' });
    const failingSince = new Date(endpoint.failingSince!);
    this.logger.warn({ endpointId, ownerKind: endpoint.ownerKind, ownerId: endpoint.ownerId, failingSince: failingSince.toISOString(), failureStreak: endpoint.failureStreak }, 'Webhook endpoint disabled: failing too long');
    // In the background: a slow mail server never holds up the deliveries to other endpoints.
    const notice = this.disabledMail
      .endpointDisabled({ id: endpoint.id, ownerId: endpoint.ownerId, url: endpoint.url, description: endpoint.description, reason, failingSince, failureStreak: endpoint.failureStreak })
      .catch((notifyError: unknown) =>
        // The endpoint stays disabled (its listing shows why); the notice is not retried: at most one mail.
        this.logger.error({ endpointId, err: { message: (notifyError as Error)?.message } }, 'Could not tell the owner of a disabled webhook endpoint'),
      );
    this.pendingNotices.track(notice);
    return true;
  }
}

/** Reads at most `cap` bytes of the body, then cancels the rest (a receiver cannot make us read megabytes). */
async function drainCapped(response: Response, cap: number): Promise<void> {
  if (!response.body) return;
  const reader = response.body.getReader();
  let read = 0;
  try {
    while (read < cap) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** No secret of the endpoint opens under this JWT_SECRET. */
class UnreadableSigningSecretError extends Error {
  constructor() {
    super('not sent: the signing secret cannot be read (JWT_SECRET changed); rotate the endpoint\'s secret');
  }
}

/** `5 days`, `12 hours`, `90 seconds`, `250 ms`: the threshold as the disabled reason and the mail say it. */
function describeDuration(ms: number): string {
  for (const [unit, size] of [['day', 86_400_000], ['hour', 3_600_000], ['minute', 60_000], ['second', 1000]] as const) {
    if (ms % size === 0) return `${ms / size} ${unit}${ms === size ? '' : 's'}`;
  }
  return `${ms} ms`;
}

function describeFailure(error: unknown): string {
  if (error instanceof UnreadableSigningSecretError) return error.message;
  if (error instanceof OutboundAddressRefusedError) return 'refused: the URL resolves to a private address';
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return 'timed out';
  return `network error: ${String((error as Error)?.message ?? error)}`.slice(0, ERROR_TEXT_MAX);
}
