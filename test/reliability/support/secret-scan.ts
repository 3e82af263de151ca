import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import type { DataSource } from 'typeorm';

export interface DumpResult {
  text: string;
  method: 'pg_dump' | 'sql';
  tables: number;
  rows: number;
  bytes: number;
}

/** The newest pg_dump of the PostgreSQL install (Debian: /usr/lib/postgresql/<version>/bin/pg_dump). */
export function findPgDump(): string | undefined {
  try {
    const versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    return versions.length ? `/usr/lib/postgresql/${versions[0]}/bin/pg_dump` : undefined;
  } catch {
    return undefined;
  }
}

/** Every row of every table of the public schema, as JSON text (the embedded database has no pg_dump). */
export async function dumpWithSql(dataSource: DataSource): Promise<{ text: string; tables: number; rows: number }> {
  const tables: { name: string }[] = await dataSource.query(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const parts: string[] = [];
  let rows = 0;
  for (const { name } of tables) {
    const result: { row: string }[] = await dataSource.query(`SELECT row_to_json(t)::text AS row FROM "${name.replace(/"/g, '""')}" t`);
    rows += result.length;
    parts.push(`-- ${name}`, ...result.map((r) => r.row));
  }
  return { text: parts.join('\n'), tables: tables.length, rows };
}

/** A full dump of the database: pg_dump on a real server, SQL over every table on the embedded one. */
export async function dumpDatabase(dataSource: DataSource, databaseUrl: string, realPostgres: boolean): Promise<DumpResult> {
  const sql = await dumpWithSql(dataSource);
  const pgDump = realPostgres ? findPgDump() : undefined;
  if (realPostgres) {
    if (!pgDump) throw new Error('pg_dump not found under /usr/lib/postgresql/*/bin');
    const text = execFileSync(pgDump, ['--no-owner', '--no-privileges', '--dbname', databaseUrl], { maxBuffer: 512 * 1024 * 1024 }).toString('utf8');
    return { text, method: 'pg_dump', tables: sql.tables, rows: sql.rows, bytes: Buffer.byteLength(text) };
  }
  return { ...sql, method: 'sql', bytes: Buffer.byteLength(sql.text) };
}

/**
 * The secrets that occur in `text`. Long secrets are searched as plain substrings; short ones
 * (6-digit reset codes) only as a whole token, so a digit run inside a uuid or timestamp is no match.
 */
export function secretsIn(text: string, secrets: Iterable<string>): string[] {
  const found: string[] = [];
  for (const secret of new Set(secrets)) {
    if (!secret || secret.length < 6) continue;
    if (secret.length >= 12) {
      if (text.includes(secret)) found.push(secret);
    } else if (new RegExp(`(?<![0-9A-Za-z])${secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z])`).test(text)) found.push(secret);
  }
  return found;
}
