import type { DataSource } from 'typeorm';
import { insertUser } from '#libs/testing';
import { generateApiKey } from '../../apps/todo-api/src/api-access/api-key.format.js';
import { grantBetaAccess } from './api-access.js';

/**
 * Inserts an API key for the user and returns the full secret. Here rather than in #libs/testing:
 * API keys are todo-api's, and libs sit below the apps (they never import from one).
 */
export async function insertApiKey(dataSource: DataSource, userId: string, options: { expiresAt?: Date; revoked?: boolean } = {}): Promise<{ id: string; key: string }> {
  const generated = generateApiKey();
  const rows = await dataSource.query(
    `INSERT INTO api_keys (user_id, name, prefix, key_hash, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [userId, 'test key', generated.prefix, generated.hash, options.expiresAt ?? null, options.revoked ? new Date() : null],
  );
  return { id: rows[0].id, key: generated.key };
}

/** A user with API access (lifetime beta) and one API key of theirs: the usual caller of the todo routes and the MCP endpoint. */
export async function insertApiCaller(dataSource: DataSource): Promise<{ userId: string; id: string; key: string }> {
  const user = await insertUser(dataSource);
  await grantBetaAccess(dataSource, user.id);
  return { userId: user.id, ...(await insertApiKey(dataSource, user.id)) };
}
