import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiKeyEntity } from '#libs/accounts';
import { executorOf, inTransaction, managerOf, type Transaction } from '#libs/database';

export interface NewApiKeySecret {
  prefix: string;
  hash: string;
}

/** API key records of one owner at a time: every query takes the owner id first. */
@Injectable()
export class ApiKeysRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return inTransaction(this.dataSource, work);
  }

  list(userId: string): Promise<ApiKeyEntity[]> {
    return this.dataSource.getRepository(ApiKeyEntity).find({ where: { userId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  findOne(userId: string, keyId: string): Promise<ApiKeyEntity | null> {
    return this.dataSource.manager.findOne(ApiKeyEntity, { where: { userId, id: keyId } });
  }

  /** The key, locked until `tx` ends. */
  lockOne(tx: Transaction, userId: string, keyId: string): Promise<ApiKeyEntity | null> {
    return managerOf(tx).findOne(ApiKeyEntity, { where: { userId, id: keyId }, lock: { mode: 'pessimistic_write' } });
  }

  /**
   * Inserts the key unless the owner already holds `maxActive` keys that still work (neither
   * revoked nor expired); null then. The owner's row is locked first, so two concurrent
   * creations cannot both see room for one more.
   */
  async insertWithinLimit(userId: string, name: string, secret: NewApiKeySecret, expiresAt: Date | null, maxActive: number): Promise<ApiKeyEntity | null> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT id FROM users WHERE id = $1 FOR UPDATE`, [userId]);
      const [{ active }] = (await manager.query(
        `SELECT count(*)::int AS active FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
        [userId],
      )) as Array<{ active: number }>;
      if (active >= maxActive) return null;
      const repository = manager.getRepository(ApiKeyEntity);
      return repository.save(repository.create({ userId, name, prefix: secret.prefix, keyHash: secret.hash, expiresAt, lastUsedAt: null, revokedAt: null }));
    });
  }

  /** Revokes the key (keeping the first revocation time); false when the owner has no such key. */
  async revoke(userId: string, keyId: string): Promise<boolean> {
    const rows = await executorOf(this.dataSource.manager).query(
      `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE user_id = $1 AND id = $2 RETURNING id`,
      [userId, keyId],
    );
    return rows.length > 0;
  }

  /** Replaces the secret in place: the old hash is gone in the same statement, so the old key fails at once. */
  async replaceSecret(tx: Transaction, userId: string, keyId: string, secret: NewApiKeySecret, expiresAt: Date | null): Promise<ApiKeyEntity> {
    await managerOf(tx).update(ApiKeyEntity, { userId, id: keyId }, { prefix: secret.prefix, keyHash: secret.hash, expiresAt, lastUsedAt: null });
    return (await managerOf(tx).findOne(ApiKeyEntity, { where: { userId, id: keyId } }))!;
  }
}
