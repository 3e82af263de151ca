import { randomBytes } from 'node:crypto';
import bcrypt from 'bcrypt';
import type { DataSource } from 'typeorm';
import { canonicalEmail, prehashPassword } from '#libs/identity';

export interface TestUser {
  id: string;
  email: string;
  username: string;
  password: string;
}

function unique(): string {
  return randomBytes(5).toString('hex');
}

/** Inserts a user directly (bcrypt cost 4, same pre-hash as PasswordHasher, so the password signs in): for tests of modules that need an account, not of signup. */
export async function insertUser(dataSource: DataSource, overrides: Partial<Omit<TestUser, 'id'>> = {}): Promise<TestUser> {
  const suffix = unique();
  const email = overrides.email ?? `user-${suffix}@example.test`;
  const username = overrides.username ?? `user_${suffix}`;
  const password = overrides.password ?? `pw-${suffix}-secret`;
  const rows = await dataSource.query(
    `INSERT INTO users (user_key, username, email, email_canonical, password_hash) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [`usr_${unique()}${unique()}`, username, email, canonicalEmail(email), await bcrypt.hash(prehashPassword(password), 4)],
  );
  return { id: rows[0].id, email, username, password };
}

/** Inserts a live refresh session for the user and returns its id (sign an access token for it with AccessTokenService). */
export async function insertSession(dataSource: DataSource, userId: string): Promise<string> {
  const rows = await dataSource.query(
    `INSERT INTO sessions (user_id, refresh_token_hash, expires_at) VALUES ($1, $2, now() + interval '30 days') RETURNING id`,
    [userId, randomBytes(32).toString('hex')],
  );
  return rows[0].id;
}
