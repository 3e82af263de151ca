/**
 * Rows of the account tables both services read (users, sessions), as repositories read them.
 * The migrations are the schema; these types and their column lists are the one TypeScript
 * description of each table's row (see CONTRIBUTING, "Schema"). Select a table's row with its
 * `*_COLUMNS` list. todo-api's own tables (api_keys, subscriptions) are in its api-access.rows.ts.
 */

type Privilege = 'user' | 'admin';

/** An account; shared by both services (the feedback service's site owners are these users). */
export interface UserRow {
  id: string;
  userKey: string;
  name: string | null;
  username: string;
  /** As typed at signup: mail goes here. */
  email: string;
  /** canonicalEmail(email): what identifies the account (unique). */
  emailCanonical: string;
  passwordHash: string;
  privilege: Privilege;
  emailConfirmed: number;
  dateJoined: Date;
  passwordChangedAt: Date;
  updatedAt: Date;
}

export const USER_COLUMNS = `id, user_key AS "userKey", name, username, email, email_canonical AS "emailCanonical",
  password_hash AS "passwordHash", privilege, email_confirmed AS "emailConfirmed", date_joined AS "dateJoined",
  password_changed_at AS "passwordChangedAt", updated_at AS "updatedAt"`;

/** A refresh-token session: one per sign-in. Access tokens carry its id. */
export interface SessionRow {
  id: string;
  userId: string;
  refreshTokenHash: string;
  userAgent: string | null;
  ipAddress: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date;
  revokedAt: Date | null;
}

export const SESSION_COLUMNS = `id, user_id AS "userId", refresh_token_hash AS "refreshTokenHash", user_agent AS "userAgent",
  ip_address AS "ipAddress", created_at AS "createdAt", last_used_at AS "lastUsedAt", expires_at AS "expiresAt", revoked_at AS "revokedAt"`;
