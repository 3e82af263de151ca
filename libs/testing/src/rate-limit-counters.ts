import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';

/**
 * A test's direct hand on the rate-limit counters of the store the app runs on (PostgreSQL's
 * rate_limit_counters, or the Redis keys under the app's REDIS_KEY_PREFIX), to preload or clear
 * a budget instead of sending hundreds of requests. Keys are the counter keys the app uses
 * (rateLimitCounterKey).
 */
export class RateLimitCounters {
  private redis?: Redis;

  constructor(
    private readonly dataSource: DataSource,
    private readonly redisConfig?: { url: string; keyPrefix: string },
  ) {}

  get storage(): 'postgres' | 'redis' {
    return this.redisConfig ? 'redis' : 'postgres';
  }

  private client(): Redis {
    this.redis ??= new Redis(this.redisConfig!.url, { keyPrefix: this.redisConfig!.keyPrefix, maxRetriesPerRequest: 1 });
    return this.redis;
  }

  /** Adds hits to a counter that a request has opened (its window stays). */
  async add(key: string, hits: number): Promise<void> {
    if (this.redisConfig) {
      if ((await this.client().exists(key)) !== 1) throw new Error(`no counter ${key}`);
      await this.client().incrby(key, hits);
    } else {
      const rows = await this.dataSource.query(`UPDATE rate_limit_counters SET hits = hits + $2 WHERE key = $1 RETURNING key`, [key, hits]);
      if (rows[0].length === 0) throw new Error(`no counter ${key}`);
    }
  }

  /** Sets an open counter to `hits` (its window stays). */
  async set(key: string, hits: number): Promise<void> {
    if (this.redisConfig) {
      if ((await this.client().set(key, hits, 'KEEPTTL', 'XX')) !== 'OK') throw new Error(`no counter ${key}`);
    } else {
      const rows = await this.dataSource.query(`UPDATE rate_limit_counters SET hits = $2 WHERE key = $1 RETURNING key`, [key, hits]);
      if (rows[0].length === 0) throw new Error(`no counter ${key}`);
    }
  }

  /** The hits of a counter (0 without one). */
  async hits(key: string): Promise<number> {
    if (this.redisConfig) return Number((await this.client().get(key)) ?? 0);
    const rows: Array<{ hits: number }> = await this.dataSource.query(`SELECT hits FROM rate_limit_counters WHERE key = $1`, [key]);
    return rows[0]?.hits ?? 0;
  }

  /** Keys starting with `prefix`, sorted. */
  async keys(prefix = ''): Promise<string[]> {
    if (this.redisConfig) {
      const { keyPrefix } = this.redisConfig;
      const found: string[] = [];
      for await (const batch of this.client().scanStream({ match: `${keyPrefix}${globLiteral(prefix)}*`, count: 1000 })) {
        found.push(...(batch as string[]).map((key) => key.slice(keyPrefix.length)));
      }
      return found.sort();
    }
    const rows: Array<{ key: string }> = await this.dataSource.query(`SELECT key FROM rate_limit_counters WHERE starts_with(key, $1) ORDER BY key`, [prefix]);
    return rows.map((row) => row.key);
  }

  /** Deletes the counters whose keys start with `prefix` (all by default). */
  async clear(prefix = ''): Promise<void> {
    if (this.redisConfig) {
      const keys = await this.keys(prefix);
      if (keys.length > 0) await this.client().del(...keys);
    } else {
      await this.dataSource.query(`DELETE FROM rate_limit_counters WHERE starts_with(key, $1)`, [prefix]);
    }
  }

  close(): void {
    this.redis?.disconnect();
  }
}

function globLiteral(value: string): string {
  return value.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}
