import { Injectable, Logger } from '@nestjs/common';
import { createSession, type Session } from 'better-sse';
import type { Request, Response } from 'express';
import { DependencyOutages, unavailableDependencyOf } from '#libs/common';
import { eventIdOf, sequenceOfEventId } from '#libs/webhooks';
import { TodoStreamLeasesService } from './todo-stream-leases.service.js';
import type { HeldLease } from './todo-stream-leases.repository.js';
import { TodosRepository, type TodoEventRow } from './todos.repository.js';

const DEFAULT_HEARTBEAT_MS = 25_000;
const REPLAY_PAGE = 500;
/** On shutdown, streams are told to reconnect after 1..3 s (spread, so a replica's clients do not all return at once). */
const DRAIN_RETRY_MIN_MS = 1000;
const DRAIN_RETRY_SPREAD_MS = 2000;

/** One open event stream on this replica. */
export interface TodoStream {
  userId: string;
  session: Session;
  response: Response;
  /** The last event id this stream has (or, at its start, is treated as having) seen. */
  lastSentId: bigint;
  /** False until the stream's start position is known, and again once it is ending. */
  ready: boolean;
  /** The request it was authenticated with: re-checked by the same rules while the stream lasts. */
  request: Request;
  lease?: HeldLease;
}

/**
 * The open event streams of this replica, by user, and what is sent on them: a stream starts at
 * the user's latest event (or after Last-Event-ID), and a pull reads the user's log after the
 * oldest position among the user's streams, so it needs no particular notice order and closes
 * any gap (a lost notice, a lost LISTEN connection). Each stream holds a lease
 * (TodoStreamLeasesService): at most TODO_STREAMS_PER_ACCOUNT per account over all replicas.
 */
@Injectable()
export class TodoStreamRegistry {
  private readonly logger = new Logger(TodoStreamRegistry.name);
  private readonly streams = new Map<string, Set<TodoStream>>();
  private readonly pulls = new Map<string, { again: boolean }>();
  /** Told when a stream leaves the registry (disconnected, ended, or the app stops), so what watches it can let go. */
  private readonly removalListeners: Array<(stream: TodoStream) => void> = [];
  /** Interval of the heartbeat comment; tests shorten it. */
  heartbeatIntervalMs = DEFAULT_HEARTBEAT_MS;
  /** Set when the drain starts: a stream still opening then is ended like those already open (see open). */
  private draining = false;

  constructor(
    private readonly repository: TodosRepository,
    private readonly outages: DependencyOutages,
    private readonly leases: TodoStreamLeasesService,
  ) {}

  /**
   * Opens a stream for the user on this request (429 when the account holds its cap of streams),
   * resuming after Last-Event-ID when given; undefined when the client left meanwhile.
   */
  async open(request: Request, response: Response, userId: string): Promise<TodoStream | undefined> {
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
    // The drain started while this stream was opening: the drain did not see it, so it ends here the same way
    // (a retry hint, then the end) instead of staying open until the grace period cuts its connection.
    if (this.draining) {
      this.leases.release(lease);
      await endWithRetryHint(session, response);
      return undefined;
    }
    const stream: TodoStream = { userId, session, response, lastSentId: 0n, ready: false, request, lease };
    const set = this.streams.get(userId) ?? new Set<TodoStream>();
    set.add(stream);
    this.streams.set(userId, set);
    session.once('disconnected', () => this.remove(stream));
    if (!session.isConnected) {
      this.remove(stream);
      return undefined;
    }
    // `evt_<n>` (what the stream sends, and a webhook's `webhook-id`) or a bare `<n>` (clients from before `evt_` ids).
    const resumeFrom = sequenceOfEventId(session.lastId);
    // Without Last-Event-ID the stream starts at the user's latest event when it opened.
    stream.lastSentId = BigInt(resumeFrom ?? latest);
    stream.ready = true;
    // Replays what follows the start position, including anything committed meanwhile.
    this.pull(userId);
    return stream;
  }

  /** Calls `listener` with each stream as it leaves the registry. */
  onRemoved(listener: (stream: TodoStream) => void): void {
    this.removalListeners.push(listener);
  }

  /** Open streams on this replica (all users). */
  count(): number {
    let count = 0;
    for (const set of this.streams.values()) count += set.size;
    return count;
  }

  streamsOf(userId: string): TodoStream[] {
    return [...(this.streams.get(userId) ?? [])];
  }

  /** Brings every user's streams up to date (after notices may have been lost). */
  pullAll(): void {
    for (const userId of this.streams.keys()) this.pull(userId);
  }

  /**
   * Delivers the user's new events to the user's local streams. Runs are serialised per user;
   * notices arriving during a run cause one more run.
   */
  pull(userId: string): void {
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
          const ready = this.streamsOf(userId).filter((stream) => stream.ready && stream.session.isConnected);
          if (ready.length === 0) break;
          const from = ready.reduce((min, stream) => (stream.lastSentId < min ? stream.lastSentId : min), ready[0].lastSentId);
          await this.replay(userId, from, ready);
        } while (state.again);
      } catch (error) {
        const dependency = unavailableDependencyOf(error);
        if (dependency) this.outages.suspect(dependency, error);
        else this.logger.warn({ err: (error as Error).message }, 'Could not read todo events; closing the streams');
        for (const stream of this.streamsOf(userId)) stream.response.end();
      } finally {
        this.pulls.delete(userId);
      }
    })();
  }

  /** Ends a stream at once: nothing more is sent. */
  end(stream: TodoStream): void {
    stream.ready = false;
    this.remove(stream);
    stream.response.end();
  }

  /** Ends every stream of the user (the account is gone). */
  endUser(userId: string): void {
    for (const stream of this.streamsOf(userId)) stream.response.end();
  }

  /** Shutdown: every stream gets a `retry` hint and ends, so its client reconnects to another replica; the leases go back. */
  async drain(): Promise<void> {
    this.draining = true;
    for (const set of this.streams.values()) {
      for (const stream of set) await endWithRetryHint(stream.session, stream.response);
    }
    await this.leases.releaseAll();
  }

  /** The app stops: every response ends, nothing is kept. */
  closeAll(): void {
    for (const set of this.streams.values()) {
      for (const stream of set) {
        for (const listener of this.removalListeners) listener(stream);
        stream.response.end();
      }
    }
    this.streams.clear();
  }

  private remove(stream: TodoStream): void {
    for (const listener of this.removalListeners) listener(stream);
    if (stream.lease) {
      this.leases.release(stream.lease);
      stream.lease = undefined;
    }
    const set = this.streams.get(stream.userId);
    if (!set) return;
    set.delete(stream);
    if (set.size === 0) this.streams.delete(stream.userId);
  }

  private async replay(userId: string, afterId: bigint, targets: TodoStream[]): Promise<void> {
    let cursor = afterId;
    for (;;) {
      const page = await this.repository.eventsAfter(userId, cursor.toString(), REPLAY_PAGE);
      for (const event of page) for (const stream of targets) this.deliver(stream, event);
      if (page.length < REPLAY_PAGE || !targets.some((stream) => stream.session.isConnected)) return;
      cursor = BigInt(page[page.length - 1].id);
    }
  }

  private deliver(stream: TodoStream, event: TodoEventRow): void {
    const id = BigInt(event.id);
    if (!stream.ready || id <= stream.lastSentId || !stream.session.isConnected) return;
    // The same id as the webhook delivery of this change (`webhook-id`), so a consumer can de-duplicate across both.
    stream.session.push(event.payload, event.type, eventIdOf(event.id));
    stream.lastSentId = id;
  }
}

/** A draining replica's goodbye on one stream: a `retry` hint (1..3 s, spread), then the end of the response. */
async function endWithRetryHint(session: Session, response: Response): Promise<void> {
  if (session.isConnected) {
    const retryMs = DRAIN_RETRY_MIN_MS + Math.floor(Math.random() * DRAIN_RETRY_SPREAD_MS);
    await session.batch((buffer) => void buffer.retry(retryMs).dispatch()).catch(() => undefined);
  }
  response.end();
}
