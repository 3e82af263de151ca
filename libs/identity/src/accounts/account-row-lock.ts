import type { Transaction } from '#libs/database';

/**
 * How strongly an account's row is held: `update` also holds off new rows that point at the account (their foreign-key
 * check takes KEY SHARE), for a count that must not change under it or the account's removal; `no-key-update` lets
 * them in and only serialises the writers that take it too.
 */
export type AccountRowLockStrength = 'update' | 'no-key-update';

const LOCK_STATEMENTS: Record<AccountRowLockStrength, string> = {
  update: `SELECT 1 FROM users WHERE id = $1 FOR UPDATE`,
  'no-key-update': `SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE`,
};

/**
 * Locks the account's row until `tx` ends, the one way an account's writes are serialised (its todos and their event
 * ids, stream leases, the API-key limit, its removal). False when the account is gone.
 */
export async function lockAccountRow(tx: Transaction, userId: string, strength: AccountRowLockStrength): Promise<boolean> {
  const rows = await tx.query(LOCK_STATEMENTS[strength], [userId]);
  return rows.length > 0;
}
