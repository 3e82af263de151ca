import { AsyncLocalStorage } from 'node:async_hooks';
import type { LoggerService } from '@nestjs/common';

/**
 * Where one app's Nest log lines go. Nest's `Logger` is process-wide: every `new Logger(Context)`
 * writes to the single logger the last `app.useLogger()` installed, so with both apps in one
 * process (`npm start`) one app's lines carried the other's `service`. Instead each app runs its
 * bootstrap and its HTTP server inside its own scope (AsyncLocalStorage: the sockets, timers and
 * promises created there keep it, so every request the server accepts runs in it), and the one
 * process-wide logger, {@link SERVICE_SCOPED_LOGGER}, writes each line to the logger of the scope
 * it is called in. On Node 24 AsyncLocalStorage costs nothing per promise (async context frames).
 */
export class ServiceLogScope {
  private static readonly current = new AsyncLocalStorage<ServiceLogScope>();
  /** Lines logged outside every scope (code a test calls directly) go to the app started last, as Nest alone would do. */
  private static latest: ServiceLogScope | undefined;

  /** Set once the app's logger exists; lines logged before that are buffered by Nest (`bufferLogs`). */
  logger: LoggerService | undefined;

  static active(): LoggerService | undefined {
    return (ServiceLogScope.current.getStore() ?? ServiceLogScope.latest)?.logger;
  }

  run<T>(work: () => T): T {
    ServiceLogScope.latest = this;
    return ServiceLogScope.current.run(this, work);
  }
}

/** The process-wide Nest logger: each call goes to the logger of the app whose scope it runs in. */
class ServiceScopedLogger implements LoggerService {
  log(message: unknown, ...rest: unknown[]): void {
    ServiceLogScope.active()?.log(message, ...rest);
  }

  error(message: unknown, ...rest: unknown[]): void {
    ServiceLogScope.active()?.error(message, ...rest);
  }

  warn(message: unknown, ...rest: unknown[]): void {
    ServiceLogScope.active()?.warn(message, ...rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    ServiceLogScope.active()?.debug?.(message, ...rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    ServiceLogScope.active()?.verbose?.(message, ...rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    ServiceLogScope.active()?.fatal?.(message, ...rest);
  }
}

export const SERVICE_SCOPED_LOGGER: LoggerService = new ServiceScopedLogger();
