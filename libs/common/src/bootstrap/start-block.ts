import { isAbsolute, relative } from 'node:path';
import { styleText } from 'node:util';
import type { Logger } from 'pino';
import { listenerUrl, type LogFormat } from '#libs/config';
import type { ServiceIndex } from '../http/service-index.module.js';

/** One app that has started listening, as the launcher tells a person about it. */
export interface StartedService {
  index: ServiceIndex;
  /** Where this process listens, e.g. http://localhost:3000. */
  url: string;
  /** {@link describeDatabase}. */
  database: string;
  /** The app's own logger (its `service` field). */
  logger: Logger;
  /** Seconds since the process started. */
  readySeconds: number;
}

/** A path as a person in the project directory would type it: relative inside it, absolute outside. */
export function displayPath(path: string): string {
  const inside = relative(process.cwd(), path);
  if (inside === '') return '.';
  return inside.startsWith('..') || isAbsolute(inside) ? path : inside;
}

/** The database in use, for people: the embedded one's directory, or the server's host, port, database and role (never the password). */
export function describeDatabase(databaseUrl: string | undefined, embeddedDataDir: string): string {
  if (!databaseUrl) return `embedded PostgreSQL (PGlite) in ${displayPath(embeddedDataDir)}`;
  const url = new URL(databaseUrl);
  const role = url.username ? ` as ${decodeURIComponent(url.username)}` : '';
  return `PostgreSQL at ${url.hostname}:${url.port || 5432}${url.pathname || '/'}${role}`;
}

/** The address a person opens: the wildcard addresses mean this machine. */
export function localUrl(host: string, port: number): string {
  // The same address the public URLs follow when they are unset outside production.
  return listenerUrl(host, port);
}

/** The block printed in pretty format: the app's links, its database, and what is not configured. */
export function startBlock(started: StartedService): string {
  const links = started.index.links(started.url);
  const rows = [...links.map((link): [string, string] => [link.name, link.href]), ['Database', started.database] as [string, string]];
  const width = Math.max(...rows.map(([name]) => name.length)) + 2;
  const title = `${styleText('bold', started.index.service)} ready in ${started.readySeconds.toFixed(1)} s (Node ${process.version})`;
  return [
    title,
    ...rows.map(([name, value]) => `  ${name.padEnd(width)}${styleText('cyan', value)}`),
    ...started.index.unsetFeatures.map((feature) => styleText('yellow', `  ! ${feature}`)),
    '',
  ].join('\n');
}

/**
 * Tells what started: in pretty format a short block on standard output; in JSON one `info`
 * line with the links and database, and one `warn` line per unconfigured feature.
 */
export function announceStart(started: StartedService, format: LogFormat): void {
  if (format === 'pretty') {
    process.stdout.write(`${startBlock(started)}\n`);
    return;
  }
  started.logger.info(
    { node: process.version, readySeconds: Number(started.readySeconds.toFixed(2)), links: started.index.links(started.url), database: started.database },
    `${started.index.service} ready at ${started.url}`,
  );
  for (const feature of started.index.unsetFeatures) started.logger.warn(feature);
}
