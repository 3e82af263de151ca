import { createServer } from 'node:net';
import { format } from 'node:util';
import type { INestApplication } from '@nestjs/common';
import type { Logger as PinoLogger } from 'pino';
import { loadConfig, makeDataDirPrivate, type AppConfig } from '#libs/config';
import { EmbeddedPostgres } from '#libs/database';
import { ServiceIndex } from '../http/service-index.module.js';
import { runBoundedStep } from '../lifecycle/bounded-step.js';
import { closeStepDeadline, GracefulShutdown } from '../lifecycle/graceful-shutdown.service.js';
import { createServiceLogger, REQUEST_LOGGING, type RequestLogging } from '../logging/request-logging.js';
import { ServiceLogScope } from '../logging/service-log-scope.js';
import { announceStart, describeDatabase, localUrl } from './start-block.js';

export interface RunningService {
  app: INestApplication;
  name: string;
  port: number;
}

export interface ServiceStarter {
  name: string;
  port: (config: AppConfig) => number;
  /** The variable that sets the port, named when the port is taken. */
  portVariable: 'TODO_API_PORT' | 'FEEDBACK_API_PORT';
  create: (config: AppConfig, databaseUrl: string) => Promise<INestApplication>;
}

/** Closing an app after a grace period used up still gets this long (a healthy close takes milliseconds). */
const MIN_APP_CLOSE_MS = 250;

/** Connections the embedded server must accept: per app, its pool, the rate-limit pool (4), the LISTEN connection and headroom. */
function embeddedConnectionBudget(config: AppConfig, apps: number): number {
  return (config.dbPoolSize + 8) * apps;
}

/** The one line a person needs when a port is taken (or may not be used). */
export function portProblem(starter: ServiceStarter, config: AppConfig, error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'EADDRINUSE' && code !== 'EACCES') return undefined;
  const port = starter.port(config);
  const problem = code === 'EADDRINUSE' ? 'is already in use' : 'may not be used by this user';
  return `${starter.name}: port ${port} on ${config.host} ${problem}; set ${starter.portVariable} to a free port (e.g. ${starter.portVariable}=${port + 100}).`;
}

const PUBLIC_URL_VARIABLE = { TODO_API_PORT: 'PUBLIC_BASE_URL', FEEDBACK_API_PORT: 'FEEDBACK_PUBLIC_BASE_URL' } as const;

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * The one line when a service's public URL names this machine (a loopback host) on another port than
 * the one it listens on: every link, the OAuth issuer and the dashboard's sign-in would lead nowhere.
 * A public URL on another host is a gateway's, whose port is its own business.
 */
export function publicUrlMismatch(starter: Pick<ServiceStarter, 'name' | 'portVariable'>, config: AppConfig, listenPort: number): string | undefined {
  const variable = PUBLIC_URL_VARIABLE[starter.portVariable];
  const url = new URL(variable === 'PUBLIC_BASE_URL' ? config.publicBaseUrl : config.feedbackPublicBaseUrl);
  if (!isLoopback(url.hostname)) return undefined;
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (port === listenPort) return undefined;
  return `${variable} (${url.origin}) names port ${port} of this machine but the service listens on ${listenPort}; links, the OAuth issuer and sign-in will point at the wrong port: unset ${variable} (it follows ${starter.portVariable} outside production) or correct it.`;
}

/** Resolves when the port can be bound now, rejects with the bind error (EADDRINUSE, EACCES) otherwise. */
export function probePort(port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ port, host }, () => probe.close(() => resolve()));
  });
}

/**
 * The launcher's own logger (start, drain, a failed start), of the same shape as the apps' lines;
 * `service` names the process's services. Before the settings are read (a wrong one is what is
 * being said) the format and level are the defaults the environment implies.
 */
export function launcherLogger(service: string, config?: Pick<AppConfig, 'logLevel' | 'logFormat'>): PinoLogger {
  if (config) return createServiceLogger(config, service);
  const format = process.env.LOG_FORMAT === 'json' || process.env.LOG_FORMAT === 'pretty' ? process.env.LOG_FORMAT : (process.env.NODE_ENV ?? 'development') === 'development' ? 'pretty' : 'json';
  return createServiceLogger({ logLevel: 'info', logFormat: format }, service);
}

/**
 * Reads settings at start, before anything else happens: a wrong variable (ConfigError) ends the
 * process with its one-line message (one JSON line in JSON format) and no stack. runServices reads
 * the shared ones (loadConfig); an app reads its own with this before calling runServices.
 */
export function loadSettingsOrExit<T>(load: () => T, service: string): T {
  try {
    return load();
  } catch (error) {
    launcherLogger(service).fatal((error as Error).message);
    process.exit(1);
  }
}

const CONSOLE_LEVELS = { log: 'info', info: 'info', warn: 'warn', error: 'error', debug: 'debug' } as const;

/**
 * Library notices that say nothing an operator can act on, logged at debug. oidc-provider warns once
 * that an upstream parser read the body of its registration endpoint (RFC 7591, JSON): that parser is
 * ours on purpose, with the limits of every route (1 MiB, depth, prototype keys), and it keeps the
 * answer to an oversized registration `invalid_client_metadata` (oidc-provider's own reader stops at
 * 56 KiB with `invalid_request`; test/reliability/oauth-abuse pins the former).
 */
const DEBUG_NOTICES = [/^oidc-provider WARNING: already parsed request body detected/];

/**
 * In JSON format, what libraries print with console.* (oidc-provider's notices and warnings) becomes
 * a line of the one shape: the app's logger when it runs in an app's scope (a request), else the launcher's.
 */
function routeConsoleTo(logger: PinoLogger): void {
  for (const [method, level] of Object.entries(CONSOLE_LEVELS) as Array<[keyof typeof CONSOLE_LEVELS, (typeof CONSOLE_LEVELS)[keyof typeof CONSOLE_LEVELS]]>) {
    console[method] = (...args: unknown[]) => {
      const text = format(...args);
      const lineLevel = DEBUG_NOTICES.some((notice) => notice.test(text)) ? 'debug' : level;
      const scoped = ServiceLogScope.active();
      if (scoped) scoped[lineLevel === 'info' ? 'log' : lineLevel]?.(text, 'console');
      else logger[lineLevel]({ context: 'console' }, text);
    };
  }
}

/**
 * Starts services in this process: DATABASE_URL when set, else the embedded database
 * under DATA_DIR. Taken ports are found before anything starts. On SIGINT/SIGTERM every app
 * drains (readiness fails at once, in-flight requests finish within SHUTDOWN_GRACE_MS, event
 * streams are told to reconnect elsewhere: see GracefulShutdown), then the apps close (their
 * pools last), then the embedded server. A second signal during the drain ends the process at once.
 */
export async function runServices(starters: ServiceStarter[]): Promise<RunningService[]> {
  const names = starters.map((starter) => starter.name).join(',');
  const config = loadSettingsOrExit(() => loadConfig(), names);
  const launcher = launcherLogger(names, config);
  if (config.logFormat === 'json') routeConsoleTo(launcher);
  for (const starter of starters) {
    if (starter.port(config) === 0) continue;
    try {
      await probePort(starter.port(config), config.host);
    } catch (error) {
      launcher.fatal(portProblem(starter, config, error) ?? { err: error }, 'failed to start');
      process.exit(1);
    }
  }
  // DATA_DIR (database files, JWT secret, outbox) is the service user's alone: whatever is
  // created from here on is 0600/0700, and what an older version or a copy left open is fixed.
  process.umask(0o077);
  const madePrivate = makeDataDirPrivate(config.dataDir);
  let embedded: EmbeddedPostgres | undefined;
  let databaseUrl = config.databaseUrl;
  const embeddedDataDir = `${config.dataDir}/pg`;
  if (!databaseUrl) {
    try {
      embedded = await EmbeddedPostgres.start({ dataDir: embeddedDataDir, maxConnections: embeddedConnectionBudget(config, starters.length) });
    } catch (error) {
      // Its messages say what to do (another process owns the directory): no stack.
      launcher.fatal((error as Error).message);
      process.exit(1);
    }
    databaseUrl = embedded.url;
  }
  const running: RunningService[] = [];
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    launcher.info({ graceMs: config.shutdownGraceMs }, `Received ${signal}; draining`);
    const reports = await Promise.all(running.map((service) => service.app.get(GracefulShutdown).drain(config.shutdownGraceMs)));
    // Every close step ends inside the grace period whatever the dependencies do: one that has
    // not finished by its deadline (a pool whose frozen database never closes its sockets) is
    // abandoned with one warning, and the process exits anyway.
    const closeBy = started + config.shutdownGraceMs;
    const warn = (fields: Record<string, unknown>, msg: string) => launcher.warn(fields, msg);
    for (const service of running) {
      // The app's own steps (the LISTEN connection) have shorter deadlines; the whole close gets what is left of the grace period.
      await runBoundedStep(() => service.app.close(), { step: `close ${service.name}`, deadline: Math.max(closeBy, Date.now() + MIN_APP_CLOSE_MS), warn });
    }
    if (embedded) await runBoundedStep(() => embedded.stop(), { step: 'stop the embedded database', deadline: closeStepDeadline(closeBy), warn });
    const cutRequests = reports.reduce((sum, report) => sum + report.cutRequests, 0);
    launcher.info({ cutRequests, elapsedMs: Date.now() - started }, 'Shut down');
    process.exit(0);
  };
  if (madePrivate.length > 0) {
    launcher.warn({ dataDir: config.dataDir }, `DATA_DIR was readable or writable by other users; made ${madePrivate.length} file(s) and directories under it private (0600/0700)`);
  }
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  let current: ServiceStarter | undefined;
  try {
    for (const starter of starters) {
      current = starter;
      const app = await starter.create(config, databaseUrl);
      const port = starter.port(config);
      await app.listen(port, config.host);
      running.push({ app, name: starter.name, port });
      const address = app.getHttpServer().address() as { port: number };
      announceStart(
        {
          index: app.get(ServiceIndex),
          url: localUrl(config.host, address.port),
          database: describeDatabase(config.databaseUrl, embeddedDataDir),
          logger: app.get<RequestLogging>(REQUEST_LOGGING).logger,
          readySeconds: process.uptime(),
        },
        config.logFormat,
      );
      const mismatch = publicUrlMismatch(starter, config, address.port);
      if (mismatch) app.get<RequestLogging>(REQUEST_LOGGING).logger.warn(mismatch);
    }
  } catch (error) {
    const portLine = current && portProblem(current, config, error);
    if (portLine) launcher.fatal(portLine);
    else launcher.fatal({ err: error }, `${current?.name ?? names} failed to start: ${(error as Error)?.message ?? String(error)}`);
    for (const service of running) await service.app.close().catch(() => undefined);
    await embedded?.stop();
    process.exit(1);
  }
  return running;
}
