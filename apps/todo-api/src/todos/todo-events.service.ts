import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { createSession, type Session } from 'better-sse';
import type { Request, Response } from 'express';
import type pg from 'pg';
import type { Counter } from 'prom-client';
import { CredentialRevocations } from '#libs/identity';
import { AppMetrics, DATABASE_DEPENDENCY, DependencyOutages, destroyPgClientSocket, GracefulShutdown, unavailableDependencyOf } from '#libs/common';
import { DatabaseFlavour, type Transaction } from '#libs/database';
import { eventIdOf, sequenceOfEventId } from '#libs/webhooks';
import { credentialExpiryOf, JwtOrApiKeyGuard } from '../api-access/jwt-or-api-key.guard.js';
import type { TodoEventData } from './dto/todo-event.dto.js';
import { TodoStreamLeasesService } from './todo-stream-leases.service.js';
import type { HeldLease } from './todo-stream-leases.repository.js';
import { TODO_EVENTS_CHANNEL, TodosRepository, type TodoEventRow } from './todos.repository.js';

/** The Postgres channel every replica listens on. Payloads name the user and the event id, never the todo itself. */
const DEFAULT_HEARTBEAT_MS = 25_000;
/** A stream asks again whether its credential works at least this often (sooner when the credential expires sooner). */
const DEFAULT_CREDENTIAL_RECHECK_MS = 30_000;
/** A JWT's `exp` is in whole seconds and it is dead from that second on: re-check just after it. */
const EXPIRY_RECHECK_MARGIN_MS = 50;
const REPLAY_PAGE = 500;
/** On shutdown, streams are told to reconnect after 1..3 s (spread, so a replica's clients do not all return at once). */
const DRAIN_RETRY_MIN_MS = 1000;
const DRAIN_RETRY_SPREAD_MS = 2000;

export type TodoEventType = keyof TodoEventData;

interface Notice {
  /** user id */
  u: string;
  /** event id; absent (and no `c`) when the user's streams must end (account deleted) */
  e?: string;
  /**
   * 1: some credential of the user stopped working (key revoked or rotated, sessions signed out,
   * access lost); each replica re-checks that user's streams. A replica of an older build reads
   * it as an account deletion and ends them all, which errs on the safe side.
   */
  c?: 1;
}

interface Subscriber {
  userId: string;
  session: Session;
  response: Response;
  /** The last event id this stream has (or, at its start, is treated as having) seen. */
  lastSentId: bigint;
  /** False until the stream's start position is known. */
  ready: boolean;
  /** The request it was authenticated with: re-checked by the same rules while the stream lasts. */
  request: Request;
  lease?: HeldLease;
  recheckTimer?: NodeJS.Timeout;
  /** A re-check is running; `recheckAgain` asks it for one more round (a notice arrived meanwhile). */
  rechecking: boolean;
  recheckAgain: boolean;
}

/**
 * Fan-out of todo changes to server-sent-event streams on every replica.
 *
 * Each change appends a row to `todo_events` inside its own transaction and sends
 * `NOTIFY todo_events` from that transaction, so the notice goes out only on commit. Every
 * replica LISTENs on one dedicated connection; a notice for a user with local streams makes
 * it read that user's log after the streams' positions and push what is new. Event ids grow
 * per user in commit order (writes lock the user row), so the log also serves Last-Event-ID
 * resume and the catch-up after a lost LISTEN connection.
 *
 * The embedded database (PGlite behind pglite-socket) is a single backend session: a
 * notification is delivered to whichever connection happens to run a query, not to the
 * listener. There, fan-out is in-process (one process owns the embedded database anyway).
 *
 * A stream lives only as long as its credential: a credential change announced anywhere
 * (CredentialRevocations) travels on the same channel, and every replica re-checks that user's
 * streams; each stream also re-checks on a timer (at its JWT's expiry at the latest), so a lost
 * notice still ends it. Each stream holds a lease (TodoStreamLeasesService): at most
 * TODO_STREAMS_PER_ACCOUNT per account over all replicas, tied to the LISTEN connection's
 * session, so a replica killed with -9 frees them when that connection closes.
 */
@Injectable()
export class TodoEventsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(TodoEventsService.name);
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private readonly pulls = new Map<string, { again: boolean }>();
  private listener?: pg.Client;
  private reconnectTimer?: NodeJS.Timeout;
  private reconnectDelayMs = 500;
  private stopping = false;
  private listenerLost = false;
  /** A connect attempt is under way; `connectAgain` asks it to try again at once if it fails (the database came back meanwhile). */
  private connecting = false;
  private connectAgain = false;
  mode: 'notify' | 'in-process' = 'notify';
  /** Interval of the heartbeat comment; tests shorten it. */
  heartbeatIntervalMs = DEFAULT_HEARTBEAT_MS;
  /** Longest time between two checks of a stream's credential; tests shorten it. */
  credentialRecheckIntervalMs = DEFAULT_CREDENTIAL_RECHECK_MS;
  private eventsWritten?: Counter;

  constructor(
    private readonly repository: TodosRepository,
    private readonly outages: DependencyOutages,
    private readonly shutdown: GracefulShutdown,
    private readonly metrics: AppMetrics,
    private readonly credentials: JwtOrApiKeyGuard,
    private readonly revocations: CredentialRevocations,
    private readonly leases: TodoStreamLeasesService,
    private readonly databaseFlavour: DatabaseFlavour,
  ) {}

  async onModuleInit(): Promise<void> {
    const openStreams = () => this.subscriberCount();
    this.metrics.gauge({
      name: 'sse_open_streams',
      help: 'Open realtime event streams (GET /api/v1/todos/events) on this replica',
      collect() {
        this.set(openStreams());
      },
    });
    // The event log is also the webhooks' outbox: each event written is fanned out to the account's endpoints.
    this.eventsWritten = this.metrics.counter({ name: 'todo_events_written_total', help: "Todo events written to the event log (the realtime stream and the webhooks' outbox)" });
    this.shutdown.onDrain(() => this.endStreamsForShutdown(), 'end the realtime streams and give their leases back');
    this.revocations.listen((userId) => this.announceCredentialChange(userId));
    this.mode = (await this.databaseFlavour.isEmbedded()) ? 'in-process' : 'notify';
    if (this.mode === 'notify') {
      // The listener's own back-off (up to 15 s) would lag the database's recovery: the outage's end reconnects it at once.
      this.outages.onRecovered((dependency) => {
        if (dependency === DATABASE_DEPENDENCY) this.reconnectNow();
      });
      await this.connectListener();
    } else {
      await this.leases.holdBy();
    }
  }

  /** The database is back (its breaker's probe passed): reconnect the LISTEN client now, not at the end of its back-off. */
  private reconnectNow(): void {
    if (this.stopping || this.listener) return;
    this.reconnectDelayMs = 500;
    if (this.connecting) {
      this.connectAgain = true;
      return;
    }
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    void this.connectListener();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    for (const set of this.subscribers.values()) {
      for (const subscriber of set) {
        clearTimeout(subscriber.recheckTimer);
        subscriber.response.end();
      }
    }
    this.subscribers.clear();
    const listener = this.listener;
    this.listener = undefined;
    // `end()` waits for the server to close the socket, which a frozen database never does: bounded, then destroyed.
    if (listener) await this.shutdown.closeStep('close the LISTEN connection for todo events', () => listener.end(), () => destroyPgClientSocket(listener));
  }

  /** Shutdown: every stream gets a `retry` hint and ends, so its client reconnects to another replica. */
  private async endStreamsForShutdown(): Promise<void> {
    for (const set of this.subscribers.values()) {
      for (const subscriber of set) {
        if (subscriber.session.isConnected) {
          const retryMs = DRAIN_RETRY_MIN_MS + Math.floor(Math.random() * DRAIN_RETRY_SPREAD_MS);
          await subscriber.session.batch((buffer) => void buffer.retry(retryMs).dispatch()).catch(() => undefined);
        }
        subscriber.response.end();
      }
    }
    await this.leases.releaseAll();
  }

  /** Open streams on this replica (all users). */
  subscriberCount(): number {
    let count = 0;
    for (const set of this.subscribers.values()) count += set.size;
    return count;
  }

  /** Whether this replica currently listens for other replicas' changes. */
  isListening(): boolean {
    return this.mode === 'in-process' || this.listener !== undefined;
  }

  /** Inside the change's transaction: announce the event to every replica on commit. */
  async announce(tx: Transaction, userId: string, eventId: string): Promise<void> {
    if (this.mode === 'notify') await this.notify(tx, { u: userId, e: eventId });
  }

  /** Inside the deletion's transaction: every replica ends the user's streams on commit. */
  async announceAccountDeleted(tx: Transaction, userId: string): Promise<void> {
    if (this.mode === 'notify') await this.notify(tx, { u: userId });
  }

  /** After a credential change committed: every replica re-checks the user's streams. */
  private async announceCredentialChange(userId: string): Promise<void> {
    if (this.mode === 'notify') await this.notify(undefined, { u: userId, c: 1 });
    else this.handleNotice({ u: userId, c: 1 });
  }

  /** After commit: the in-process fallback delivers here (with NOTIFY the listener does). */
  committed(userId: string, eventId?: string): void {
    if (eventId !== undefined) this.eventsWritten?.inc();
    if (this.mode === 'in-process') this.handleNotice({ u: userId, e: eventId });
  }

  /**
   * Opens a stream for the user on this request (429 when the account holds its cap of streams);
   * resumes after Last-Event-ID when given. It ends when the request's credential stops working.
   */
  async open(request: Request, response: Response, userId: string): Promise<void> {
    const lease = await this.leases.acquire(userId);
    let latest: string;
    let session: Session;
    try {
      // The start position is fixed before the response starts: a client that writes as soon as
      // it sees the stream open must get that write's event, which may commit before a later read.
      latest = await this.repository.latestEventId(userId);
      session = await createSession(request, response, {
        keepAlive: this.heartbeatIntervalMs,
        retry: 2000,
        headers: { 'X-Accel-Buffering': 'no' },
      });
    } catch (error) {
      this.leases.release(lease);
      throw error;
    }
    const subscriber: Subscriber = { userId, session, response, lastSentId: 0n, ready: false, request, lease, rechecking: false, recheckAgain: false };
    const set = this.subscribers.get(userId) ?? new Set<Subscriber>();
    set.add(subscriber);
    this.subscribers.set(userId, set);
    session.once('disconnected', () => this.remove(subscriber));
    if (!session.isConnected) {
      this.remove(subscriber);
      return;
    }
    this.scheduleRecheck(subscriber, credentialExpiryOf(request));
    // `evt_<n>` (what the stream sends, and a webhook's `webhook-id`) or a bare `<n>` (clients from before `evt_` ids).
    const resumeFrom = sequenceOfEventId(session.lastId);
    // Without Last-Event-ID the stream starts at the user's latest event when it opened.
    subscriber.lastSentId = BigInt(resumeFrom ?? latest);
    subscriber.ready = true;
    // Replays what follows the start position, including anything committed meanwhile.
    this.pull(userId);
  }

  /**
   * Delivers the user's new events to the user's local streams: reads the log after the
   * oldest position among them, so it needs no particular notice order and closes any gap.
   * Runs are serialised per user; notices arriving during a run cause one more run.
   */
  private pull(userId: string): void {
    const running = this.pulls.get(userId);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: false };
    this.pulls.set(userId, state);
    void (async () => {
      try {
        do {
          state.again = false;
          const ready = [...(this.subscribers.get(userId) ?? [])].filter((subscriber) => subscriber.ready && subscriber.session.isConnected);
          if (ready.length === 0) break;
          const from = ready.reduce((min, subscriber) => (subscriber.lastSentId < min ? subscriber.lastSentId : min), ready[0].lastSentId);
          await this.replay(userId, from, ready);
        } while (state.again);
      } catch (error) {
        const dependency = unavailableDependencyOf(error);
        if (dependency) this.outages.suspect(dependency, error);
        else this.logger.warn({ err: (error as Error).message }, 'Could not read todo events; closing the streams');
        for (const subscriber of this.subscribers.get(userId) ?? []) subscriber.response.end();
      } finally {
        this.pulls.delete(userId);
      }
    })();
  }

  private async replay(userId: string, afterId: bigint, targets: Subscriber[]): Promise<void> {
    let cursor = afterId;
    for (;;) {
      const page = await this.repository.eventsAfter(userId, cursor.toString(), REPLAY_PAGE);
      for (const event of page) for (const subscriber of targets) this.deliver(subscriber, event);
      if (page.length < REPLAY_PAGE || !targets.some((subscriber) => subscriber.session.isConnected)) return;
      cursor = BigInt(page[page.length - 1].id);
    }
  }

  /** The next check of the stream's credential: after the recheck interval, or just after the credential expires if sooner. */
  private scheduleRecheck(subscriber: Subscriber, expiresAt: Date | null): void {
    clearTimeout(subscriber.recheckTimer);
    const untilExpiry = expiresAt ? expiresAt.getTime() - Date.now() + EXPIRY_RECHECK_MARGIN_MS : Infinity;
    const delay = Math.max(EXPIRY_RECHECK_MARGIN_MS, Math.min(this.credentialRecheckIntervalMs, untilExpiry));
    subscriber.recheckTimer = setTimeout(() => this.recheck(subscriber), delay);
    subscriber.recheckTimer.unref();
  }

  /**
   * Asks whether the stream's credential still works, by the rules that let it in; ends the
   * stream when it does not. Runs are serialised per stream; a notice arriving during a run
   * causes one more. An outage is no verdict: the stream stays and asks again later.
   */
  private recheck(subscriber: Subscriber): void {
    if (subscriber.rechecking) {
      subscriber.recheckAgain = true;
      return;
    }
    subscriber.rechecking = true;
    void (async () => {
      let expiresAt: Date | null = null;
      try {
        do {
          subscriber.recheckAgain = false;
          if (!subscriber.session.isConnected) return;
          const status = await this.credentials.recheck(subscriber.request);
          if (!status.live) {
            this.endForCredential(subscriber);
            return;
          }
          expiresAt = status.expiresAt;
        } while (subscriber.recheckAgain);
      } catch (error) {
        const dependency = unavailableDependencyOf(error);
        if (dependency) this.outages.suspect(dependency, error);
        else this.logger.warn({ err: (error as Error).message }, 'Could not re-check the credential of a todo event stream; asking again later');
      } finally {
        subscriber.rechecking = false;
      }
      if (subscriber.session.isConnected) this.scheduleRecheck(subscriber, expiresAt ?? credentialExpiryOf(subscriber.request));
    })();
  }

  /**
   * The credential no longer works: nothing more is sent, and the response ends. EventSource
   * then reconnects with the same credential and gets its 401 or 402, which ends it for good.
   */
  private endForCredential(subscriber: Subscriber): void {
    subscriber.ready = false;
    this.remove(subscriber);
    subscriber.response.end();
  }

  private remove(subscriber: Subscriber): void {
    clearTimeout(subscriber.recheckTimer);
    if (subscriber.lease) {
      this.leases.release(subscriber.lease);
      subscriber.lease = undefined;
    }
    const set = this.subscribers.get(subscriber.userId);
    if (!set) return;
    set.delete(subscriber);
    if (set.size === 0) this.subscribers.delete(subscriber.userId);
  }

  private deliver(subscriber: Subscriber, event: TodoEventRow): void {
    const id = BigInt(event.id);
    if (!subscriber.ready || id <= subscriber.lastSentId || !subscriber.session.isConnected) return;
    // The same id as the webhook delivery of this change (`webhook-id`), so a consumer can de-duplicate across both.
    subscriber.session.push(event.payload, event.type, eventIdOf(event.id));
    subscriber.lastSentId = id;
  }

  private async notify(tx: Transaction | undefined, notice: Notice): Promise<void> {
    await this.repository.notifyEvents(tx, JSON.stringify(notice));
  }

  private handleNotice(notice: Notice): void {
    const local = this.subscribers.get(notice.u);
    if (!local || local.size === 0) return;
    if (notice.c === 1) {
      for (const subscriber of [...local]) this.recheck(subscriber);
      return;
    }
    if (notice.e === undefined) {
      for (const subscriber of [...local]) subscriber.response.end();
      return;
    }
    this.pull(notice.u);
  }

  private async connectListener(): Promise<void> {
    const { client, listen } = this.repository.eventsListener();
    const lost = (error?: Error) => {
      if (this.listener !== client) return;
      this.listener = undefined;
      this.listenerLost = true;
      this.leases.sessionLost();
      client.end().catch(() => undefined);
      // During an outage this is one more connection lost: the outage is logged once, by DependencyOutages.
      if (!this.stopping) this.outages.suspect(DATABASE_DEPENDENCY, error);
      this.logger.log('Lost the LISTEN connection for todo events; reconnecting');
      this.scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (message) => {
      if (message.channel !== TODO_EVENTS_CHANNEL || !message.payload) return;
      try {
        const notice = JSON.parse(message.payload) as Notice;
        if (typeof notice.u === 'string') this.handleNotice(notice);
      } catch {
        // not ours
      }
    });
    this.connecting = true;
    this.connectAgain = false;
    try {
      await client.connect();
      await listen();
      this.connecting = false;
      this.listener = client;
      this.reconnectDelayMs = 500;
      // The leases of this replica's streams belong to this session from now on.
      void this.leases.holdBy(client);
      // Notices sent while nobody listened are gone; the event log still has the events.
      if (this.listenerLost) {
        this.listenerLost = false;
        this.logger.log('LISTEN connection for todo events restored; catching the open streams up');
        for (const userId of this.subscribers.keys()) this.pull(userId);
      }
    } catch (error) {
      this.connecting = false;
      client.removeAllListeners();
      client.on('error', () => undefined);
      destroyPgClientSocket(client);
      this.logger.debug({ err: (error as Error).message }, 'Could not LISTEN for todo events; retrying');
      if (this.connectAgain && !this.stopping) {
        this.connectAgain = false;
        void this.connectListener();
      } else this.scheduleReconnect();
    }
  }

  private scheduleReconnect(): void {
    if (this.stopping || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connectListener();
    }, this.reconnectDelayMs);
    this.reconnectTimer.unref();
    this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, 15_000);
  }
}
