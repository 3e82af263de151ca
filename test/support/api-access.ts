import type { DataSource } from 'typeorm';

/**
 * Gives the user API access through lifetime beta (no payment provider involved). Here rather than in
 * #libs/testing: API access and its `subscriptions` rows are todo-api's.
 */
export async function grantBetaAccess(dataSource: DataSource, userId: string): Promise<void> {
  await dataSource.query(
    `INSERT INTO subscriptions (user_id, is_beta_lifetime) VALUES ($1, true)
     ON CONFLICT (user_id) DO UPDATE SET is_beta_lifetime = true, updated_at = now()`,
    [userId],
  );
}
