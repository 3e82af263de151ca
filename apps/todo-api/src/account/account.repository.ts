import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiKeyEntity, SessionEntity, SubscriptionEntity, UserEntity } from '#libs/accounts';
import { inTransaction, managerOf, type Transaction } from '#libs/database';

/** Reads of everything an account owns, and its removal. Every query takes the user id first. */
@Injectable()
export class AccountRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return inTransaction(this.dataSource, work);
  }

  findUser(userId: string): Promise<UserEntity | null> {
    return this.dataSource.getRepository(UserEntity).findOne({ where: { id: userId } });
  }

  findApiKeys(userId: string): Promise<ApiKeyEntity[]> {
    return this.dataSource.getRepository(ApiKeyEntity).find({ where: { userId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  findSessions(userId: string): Promise<SessionEntity[]> {
    return this.dataSource.getRepository(SessionEntity).find({ where: { userId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  findSubscription(userId: string): Promise<SubscriptionEntity | null> {
    return this.dataSource.getRepository(SubscriptionEntity).findOne({ where: { userId } });
  }

  /**
   * Removes the account. Every user-owned table references users(id) ON DELETE CASCADE, so
   * deleting the user row removes the rest in the same statement. Answers the ids of the API
   * keys and sessions it had (their rate-limit counters are keyed by text and go separately), or
   * undefined when the user was already gone.
   */
  async deleteUser(tx: Transaction, userId: string): Promise<{ apiKeyIds: string[]; sessionIds: string[] } | undefined> {
    const manager = managerOf(tx);
    const locked = await manager.query(`SELECT id FROM users WHERE id = $1 FOR UPDATE`, [userId]);
    if (locked.length === 0) return undefined;
    const keys: Array<{ id: string }> = await manager.query(`SELECT id FROM api_keys WHERE user_id = $1`, [userId]);
    const sessions: Array<{ id: string }> = await manager.query(`SELECT id FROM sessions WHERE user_id = $1`, [userId]);
    await manager.query(`DELETE FROM users WHERE id = $1`, [userId]);
    return { apiKeyIds: keys.map((key) => key.id), sessionIds: sessions.map((session) => session.id) };
  }
}
