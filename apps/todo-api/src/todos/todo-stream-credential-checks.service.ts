import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DependencyOutages, unavailableDependencyOf } from '#libs/common';
import { credentialExpiryOf, JwtOrApiKeyGuard } from '../api-access/jwt-or-api-key.guard.js';
import { TodoStreamRegistry, type TodoStream } from './todo-streams.registry.js';

/** A stream asks again whether its credential works at least this often (sooner when the credential expires sooner). */
const DEFAULT_CREDENTIAL_RECHECK_MS = 30_000;
/** A JWT's `exp` is in whole seconds and it is dead from that second on: re-check just after it. */
const EXPIRY_RECHECK_MARGIN_MS = 50;

/** A stream's checks: the next one, and whether one runs or must run again. */
interface CheckState {
  timer?: NodeJS.Timeout;
  running: boolean;
  again: boolean;
}

/**
 * A stream lives only as long as its credential: it is asked again, by the rules that let it
 * in, on a timer (at its JWT's expiry at the latest) and whenever a credential change of its
 * user is announced; a credential that no longer works ends the stream. EventSource then
 * reconnects with the same credential and gets its 401 or 402, which ends it for good.
 */
@Injectable()
export class TodoStreamCredentialChecks implements OnModuleInit {
  private readonly logger = new Logger(TodoStreamCredentialChecks.name);
  /** Longest time between two checks of a stream's credential; tests shorten it. */
  intervalMs = DEFAULT_CREDENTIAL_RECHECK_MS;
  private readonly checks = new WeakMap<TodoStream, CheckState>();

  constructor(
    private readonly credentials: JwtOrApiKeyGuard,
    private readonly outages: DependencyOutages,
    private readonly streams: TodoStreamRegistry,
  ) {}

  onModuleInit(): void {
    // A stream that leaves (disconnected, ended, app stopping) is checked no more.
    this.streams.onRemoved((stream) => {
      clearTimeout(this.checks.get(stream)?.timer);
      this.checks.delete(stream);
    });
  }

  /** Starts checking a newly opened stream. */
  watch(stream: TodoStream): void {
    if (!stream.ready || !stream.session.isConnected) return; // already gone
    this.checks.set(stream, { running: false, again: false });
    this.schedule(stream, credentialExpiryOf(stream.request));
  }

  /** A credential of the user changed: check each of the user's streams now. */
  recheckUser(userId: string): void {
    for (const stream of this.streams.streamsOf(userId)) this.recheck(stream);
  }

  /** The next check: after the interval, or just after the credential expires if sooner. */
  private schedule(stream: TodoStream, expiresAt: Date | null): void {
    const state = this.checks.get(stream);
    if (!state) return; // the stream has left
    clearTimeout(state.timer);
    const untilExpiry = expiresAt ? expiresAt.getTime() - Date.now() + EXPIRY_RECHECK_MARGIN_MS : Infinity;
    const delay = Math.max(EXPIRY_RECHECK_MARGIN_MS, Math.min(this.intervalMs, untilExpiry));
    state.timer = setTimeout(() => this.recheck(stream), delay);
    state.timer.unref();
  }

  /**
   * Runs are serialised per stream; a notice arriving during a run causes one more. An outage is
   * no verdict: the stream stays and asks again later.
   */
  private recheck(stream: TodoStream): void {
    const state = this.checks.get(stream);
    if (!state) return; // the stream has left
    if (state.running) {
      state.again = true;
      return;
    }
    state.running = true;
    void (async () => {
      let expiresAt: Date | null = null;
      try {
        do {
          state.again = false;
          if (!stream.session.isConnected) return;
          const status = await this.credentials.recheck(stream.request);
          if (!status.live) {
            this.streams.end(stream);
            return;
          }
          expiresAt = status.expiresAt;
        } while (state.again);
      } catch (error) {
        const dependency = unavailableDependencyOf(error);
        if (dependency) this.outages.suspect(dependency, error);
        else this.logger.warn({ err: (error as Error).message }, 'Could not re-check the credential of a todo event stream; asking again later');
      } finally {
        state.running = false;
      }
      if (stream.session.isConnected) this.schedule(stream, expiresAt ?? credentialExpiryOf(stream.request));
    })();
  }
}
