import { Injectable, Logger } from '@nestjs/common';
import { DATABASE_DEPENDENCY, DependencyOutages, GracefulShutdown } from '#libs/common';
import type { DedicatedConnection } from '#libs/database';
import { TodoStreamLeasesService } from './todo-stream-leases.service.js';
import { TodosRepository } from './todos.repository.js';

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
  private connection?: DedicatedConnection;
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
    return this.connection !== undefined;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const connection = this.connection;
    this.connection = undefined;
    // `end()` waits for the server to close the socket, which a frozen database never does: bounded, then destroyed.
    if (connection) await this.shutdown.closeStep('close the LISTEN connection for todo events', () => connection.end(), () => connection.destroy());
  }

  /** The database is back (its breaker's probe passed): reconnect now, not at the end of the back-off. */
  private reconnectNow(): void {
    if (this.stopping || this.connection) return;
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
    const connection = this.repository.eventsConnection();
    const lost = (error?: Error) => {
      if (this.connection !== connection) return;
      this.connection = undefined;
      this.lost = true;
      this.leases.sessionLost();
      connection.end().catch(() => undefined);
      // During an outage this is one more connection lost: the outage is logged once, by DependencyOutages.
      if (!this.stopping) this.outages.suspect(DATABASE_DEPENDENCY, error);
      this.logger.log('Lost the LISTEN connection for todo events; reconnecting');
      this.scheduleReconnect();
    };
    connection.onLost(lost);
    this.connecting = true;
    this.connectAgain = false;
    try {
      await connection.connect();
      await this.repository.listenForEvents(connection, (payload) => {
        try {
          const notice = JSON.parse(payload) as TodoEventNotice;
          if (typeof notice.u === 'string') this.handlers?.notice(notice);
        } catch {
          // not ours
        }
      });
      this.connecting = false;
      this.connection = connection;
      this.reconnectDelayMs = FIRST_RECONNECT_DELAY_MS;
      // The leases of this replica's streams belong to this session from now on.
      void this.leases.holdBy(connection);
      if (this.lost) {
        this.lost = false;
        this.logger.log('LISTEN connection for todo events restored; catching the open streams up');
        this.handlers?.restored();
      }
    } catch (error) {
      this.connecting = false;
      connection.destroy();
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
