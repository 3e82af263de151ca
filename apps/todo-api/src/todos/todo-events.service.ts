import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CredentialRevocations } from '#libs/identity';
import { AppMetrics, GracefulShutdown } from '#libs/common';
import { DatabaseFlavour, type Transaction } from '#libs/database';
import { eventsWrittenCounter, type EventsWritten } from '#libs/webhooks';
import { TODO_EVENTS_WRITTEN } from '../webhooks/todo-webhook-events.js';
import type { TodoEventData } from './dto/todo-event.dto.js';
import { TodoEventsListener, type TodoEventNotice } from './todo-events.listener.js';
import { TodoStreamCredentialChecks } from './todo-stream-credential-checks.service.js';
import { TodoStreamLeasesService } from './todo-stream-leases.service.js';
import { TodoStreamRegistry } from './todo-streams.registry.js';
import { TodosRepository } from './todos.repository.js';

export type TodoEventType = keyof TodoEventData;

/**
 * Fan-out of todo changes to server-sent-event streams on every replica: what the rest of the
 * app calls (a change announces its event, the route opens a stream), composed of four parts,
 * each with one job:
 * - TodoEventsListener: the replica's LISTEN connection (reconnects, hands notices on);
 * - TodoStreamRegistry: the open streams and what is sent on them (replay from the event log);
 * - TodoStreamLeasesService: the cap of streams per account over all replicas;
 * - TodoStreamCredentialChecks: a stream ends when its credential stops working.
 *
 * Each change appends a row to `todo_events` inside its own transaction and sends
 * `NOTIFY todo_events` from that transaction, so the notice goes out only on commit. A notice
 * for a user with local streams makes the registry read that user's log after the streams'
 * positions and push what is new. Event ids grow per user in commit order (writes lock the user
 * row), so the log also serves Last-Event-ID resume and the catch-up after a lost connection.
 *
 * The embedded database (PGlite behind pglite-socket) is a single backend session: a
 * notification is delivered to whichever connection happens to run a query, not to the
 * listener. There, fan-out is in-process (one process owns the embedded database anyway).
 *
 * A credential change announced anywhere (CredentialRevocations) travels on the same channel,
 * and every replica re-checks that user's streams.
 */
@Injectable()
export class TodoEventsService implements OnModuleInit, OnModuleDestroy {
  mode: 'notify' | 'in-process' = 'notify';
  private eventsWritten?: EventsWritten<TodoEventType>;

  constructor(
    private readonly repository: TodosRepository,
    private readonly shutdown: GracefulShutdown,
    private readonly metrics: AppMetrics,
    private readonly revocations: CredentialRevocations,
    private readonly databaseFlavour: DatabaseFlavour,
    private readonly listener: TodoEventsListener,
    private readonly streams: TodoStreamRegistry,
    private readonly credentialChecks: TodoStreamCredentialChecks,
    private readonly leases: TodoStreamLeasesService,
  ) {}

  async onModuleInit(): Promise<void> {
    const streams = this.streams;
    this.metrics.gauge({
      name: 'sse_open_streams',
      help: 'Open realtime event streams (GET /api/v1/todos/events) on this replica',
      collect() {
        this.set(streams.count());
      },
    });
    // The event log is also the webhooks' outbox: each event written is fanned out to the account's endpoints.
    this.eventsWritten = eventsWrittenCounter(this.metrics, TODO_EVENTS_WRITTEN);
    this.shutdown.onDrain(() => this.streams.drain(), 'end the realtime streams and give their leases back');
    this.revocations.listen((userId) => this.announceCredentialChange(userId));
    this.mode = (await this.databaseFlavour.isEmbedded()) ? 'in-process' : 'notify';
    if (this.mode === 'notify') {
      // Notices sent while nobody listened are gone; the event log still has the events.
      await this.listener.start({ notice: (notice) => this.handleNotice(notice), restored: () => this.streams.pullAll() });
    } else {
      await this.leases.holdBy();
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.streams.closeAll();
    await this.listener.stop();
  }

  /** Open streams on this replica (all users). */
  subscriberCount(): number {
    return this.streams.count();
  }

  /** Whether this replica currently listens for other replicas' changes. */
  isListening(): boolean {
    return this.mode === 'in-process' || this.listener.isListening();
  }

  /** Inside the change's transaction: announce the event to every replica on commit. */
  async announce(tx: Transaction, userId: string, eventId: string): Promise<void> {
    if (this.mode === 'notify') await this.notify(tx, { u: userId, e: eventId });
  }

  /** Inside the deletion's transaction: every replica ends the user's streams on commit. */
  async announceAccountDeleted(tx: Transaction, userId: string): Promise<void> {
    if (this.mode === 'notify') await this.notify(tx, { u: userId });
  }

  /** After commit (the event written, when there is one): the in-process fallback delivers here (with NOTIFY the listener does). */
  committed(userId: string, event?: { id: string; type: TodoEventType }): void {
    if (event !== undefined) this.eventsWritten?.written(event.type);
    if (this.mode === 'in-process') this.handleNotice({ u: userId, e: event?.id });
  }

  /**
   * Opens a stream for the user on this request (429 when the account holds its cap of streams);
   * resumes after Last-Event-ID when given. It ends when the request's credential stops working.
   */
  async open(request: Request, response: Response, userId: string): Promise<void> {
    const stream = await this.streams.open(request, response, userId);
    if (stream) this.credentialChecks.watch(stream);
  }

  /** After a credential change committed: every replica re-checks the user's streams. */
  private async announceCredentialChange(userId: string): Promise<void> {
    if (this.mode === 'notify') await this.notify(undefined, { u: userId, c: 1 });
    else this.handleNotice({ u: userId, c: 1 });
  }

  private async notify(tx: Transaction | undefined, notice: TodoEventNotice): Promise<void> {
    await this.repository.notifyEvents(tx, JSON.stringify(notice));
  }

  private handleNotice(notice: TodoEventNotice): void {
    if (notice.c === 1) this.credentialChecks.recheckUser(notice.u);
    else if (notice.e === undefined) this.streams.endUser(notice.u);
    else this.streams.pull(notice.u);
  }
}
