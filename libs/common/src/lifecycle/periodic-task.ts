import type { LoggerService } from '@nestjs/common';

/**
 * Background work every replica runs on a timer (sweeps, key checks, lease renewal): started in
 * `onModuleInit`, stopped in `onModuleDestroy`. The timer never keeps the process alive; a failed
 * run is one warning and the next run goes on. Work that every replica runs at once must be safe
 * so (idempotent statements, SKIP LOCKED batches, or an advisory lock where one replica acts).
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly run: () => Promise<unknown>,
    private readonly logger: Pick<LoggerService, 'warn'>,
  ) {}

  /** Starts the timer; a second call (Nest may init a provider seen by several modules twice) does nothing. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.run().catch((error: Error) => this.logger.warn({ err: error?.message }, `${this.name} failed`));
    }, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
