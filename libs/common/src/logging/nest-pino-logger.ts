import type { LoggerService } from '@nestjs/common';
import type { Logger as PinoLogger } from 'pino';

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/**
 * Nest's start-up chatter (a line per module and per route, ~70 per app) is written at debug:
 * LOG_LEVEL=debug shows it. DataSourceNameRegistry warns about the second app's default data
 * source although each app's lives in its own container: @nestjs/typeorm's registry is
 * process-wide and cannot tell two apps in one process (`npm start`) from one app with two.
 */
const DEBUG_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication', 'DataSourceNameRegistry']);

/**
 * Nest's logger interface over the app's pino logger, so framework and service logs are the
 * same JSON lines as the access log.
 *
 * Nest appends a `new Logger('Context')`'s context as the last argument. A first argument that
 * is an object is merged into the line (pino style: `logger.warn({ err }, 'message')`); an
 * Error becomes `err`; Nest's own `error(message, stack, context)` keeps the stack.
 */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: PinoLogger) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }

  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(level: Level, message: unknown, rest: unknown[]): void {
    const params = [...rest];
    const context = params.length > 0 && typeof params[params.length - 1] === 'string' ? (params.pop() as string) : undefined;
    if (context !== undefined && (level === 'info' || level === 'warn') && DEBUG_CONTEXTS.has(context)) level = 'debug';
    // A failed start is logged once, with its cause, by the launcher (runServices): Nest's own line of it is debug.
    if (context === 'ExceptionHandler') level = 'debug';
    if (context === 'TypeOrmModule' && level === 'error' && typeof message === 'string' && message.includes('Retrying')) {
      // Connection attempts at start (a database still booting): a warning each, the cause without the stack.
      if (!this.logger.isLevelEnabled('warn')) return;
      const cause = typeof params[0] === 'string' ? params[0].split('\n')[0] : undefined;
      this.logger.warn({ context, cause }, message);
      return;
    }
    if (!this.logger.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = {};
    if (context !== undefined) fields.context = context;
    if (message instanceof Error) {
      fields.err = message;
    } else if (message !== null && typeof message === 'object') {
      Object.assign(fields, message);
    } else if (level === 'error' && typeof params[0] === 'string' && params[0].includes('\n    at ')) {
      // Nest's exception handlers: error(message, stack, context).
      const err = new Error(String(message));
      err.stack = params.shift() as string;
      fields.err = err;
      this.logger.error(fields, String(message));
      return;
    }
    const text = typeof message === 'object' && message !== null ? params.shift() : message;
    this.logger[level](fields, text === undefined ? undefined : String(text), ...params);
  }
}
