import { Injectable, Logger } from '@nestjs/common';
import type pg from 'pg';
import { DATABASE_DEPENDENCY, DependencyOutages, destroyPgClientSocket, GracefulShutdown } from '#libs/common';
import { TodoStreamLeasesService } from './todo-stream-leases.service.js';
import { TODO_EVENTS_CHANNEL, TodosRepository } from './todos.repository.js';

/** What travels on the todo events channel. Payloads name the user and the event id, never the todo itself. */
export interface TodoEventNotice {
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

export interface TodoEventsListenerHandlers {
  /** A notice arrived (another replica's commit, or this one's). */
  notice(notice: TodoEventNotice): void;
  /** The connection came back after it was lost: notices sent meanwhile are gone, the event log still has the events. */
  restored(): void;
}

const FIRST_RECONNECT_DELAY_MS = 500;
const LONGEST_RECONNECT_DELAY_MS = 15_000;

/**
 * The replica's one LISTEN connection on the todo events channel: connects, reconnects with a
 * doubling back-off (at once when the database's outage ends), and hands each notice on. The
 * streams' leases belong to its session (TodoStreamLeasesService.holdBy), so a replica killed
 * with -9 frees them when this connection closes.
 */
@Injectable()
export class TodoEventsListener {
  private readonly logger = new Logger(TodoEventsListener.name);
  private client?: pg.Client;
  private handlers?: TodoEventsListenerHandlers;
  private reconnectTimer?: NodeJS.Timeout;
  private reconnectDelayMs = FIRST_RECONNECT_DELAY_MS;
  private stopping = false;
  private lost = false;
  /** A connect attempt is under way; `connectAgain` asks it to try again at once if it fails (the database came back meanwhile). */
  private connecting = false;
  private connectAgain = false;

  constructor(
    private readonly repository: TodosRepository,
    private readonly outages: DependencyOutages,
    private readonly shutdown: GracefulShutdown,
    private readonly leases: TodoStreamLeasesService,
  ) {}

  async start(handlers: TodoEventsListenerHandlers): Promise<void> {
    this.handlers = handlers;
    // The back-off (up to 15 s) would lag the database's recovery: the outage's end reconnects at once.
    this.outages.onRecovered((dependency) => {
      if (dependency === DATABASE_DEPENDENCY) this.reconnectNow();
    });
    await this.connect();
  }

  isListening(): boolean {
    return this.client !== undefined;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    // `end()` waits for the server to close the socket, which a frozen database never does: bounded, then destroyed.
    if (client) await this.shutdown.closeStep('close the LISTEN connection for todo events', () => client.end(), () => destroyPgClientSocket(client));
  }

  /** The database is back (its breaker's probe passed): reconnect now, not at the end of the back-off. */
  private reconnectNow(): void {
    if (this.stopping || this.client) return;
    this.reconnectDelayMs = FIRST_RECONNECT_DELAY_MS;
    if (this.connecting) {
      this.connectAgain = true;
      return;
    }
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    void this.connect();
  }

  private async connect(): Promise<void> {
    const { client, listen } = this.repository.eventsListener();
    const lost = (error?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.lost = true;
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
        const notice = JSON.parse(message.payload) as TodoEventNotice;
        if (typeof notice.u === 'string') this.handlers?.notice(notice);
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
      this.client = client;
      this.reconnectDelayMs = FIRST_RECONNECT_DELAY_MS;
      // The leases of this replica's streams belong to this session from now on.
      void this.leases.holdBy(client);
      if (this.lost) {
        this.lost = false;
        this.logger.log('LISTEN connection for todo events restored; catching the open streams up');
        this.handlers?.restored();
      }
    } catch (error) {
      this.connecting = false;
      client.removeAllListeners();
      client.on('error', () => undefined);
      destroyPgClientSocket(client);
      this.logger.debug({ err: (error as Error).message }, 'Could not LISTEN for todo events; retrying');
      if (this.connectAgain && !this.stopping) {
        this.connectAgain = false;
        void this.connect();
      } else this.scheduleReconnect();
    }
  }

  private scheduleReconnect(): void {
    if (this.stopping || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connect();
    }, this.reconnectDelayMs);
    this.reconnectTimer.unref();
    this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, LONGEST_RECONNECT_DELAY_MS);
  }
}
