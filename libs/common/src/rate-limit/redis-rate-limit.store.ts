import { Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Redis } from 'ioredis';
import type { AppConfig } from '#libs/config';
import { RateLimitStore, RateLimitStoreUnavailableError, type RateLimitHit } from './rate-limit.store.js';

/**
 * One hit, atomically: the first hit of a window sets its expiry (a key somehow left without
 * one gets it too), so a window is exactly `windowMs` from its first hit, like the PostgreSQL store.
 */
const HIT_SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {hits, ttl}`;

const PEEK_SCRIPT = `
local hits = redis.call('GET', KEYS[1])
if not hits then return {0, 0} end
return {tonumber(hits), redis.call('PTTL', KEYS[1])}`;

/** DECR keeps the key's expiry; an expired window has nothing to give back. */
const RELEASE_SCRIPT = `
local hits = tonumber(redis.call('GET', KEYS[1]) or '0')
if hits > 0 then return redis.call('DECR', KEYS[1]) end
return 0`;

interface RateLimitScripts {
  rateLimitHit(key: string, windowMs: number): Promise<[number, number]>;
  rateLimitPeek(key: string): Promise<[number, number]>;
  rateLimitRelease(key: string): Promise<number>;
}

/** How long a command may wait for Redis before the store counts as unreachable. */
const COMMAND_TIMEOUT_MS = 1000;
/** How long start-up waits for the first connection before serving anyway. */
const STARTUP_WAIT_MS = 3000;

const UNAVAILABLE_REPLY = /^(OOM|LOADING|READONLY|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS)\b/;

function globLiteral(value: string): string {
  return value.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/**
 * Fixed-window counters in Redis (REDIS_URL), shared by every replica: each hit is one Lua
 * script (INCR and the window's expiry together), so concurrent hits on any replica are counted
 * exactly. Keys are `REDIS_KEY_PREFIX` + the counter key and expire with their window.
 *
 * Unreachable Redis fails fast (no offline queue, a 1 s command timeout): every call then
 * throws RateLimitStoreUnavailableError (503), which RateLimitGuard lets through on routes
 * that fail open. The outage is logged once when it starts and once when it ends.
 */
export class RedisRateLimitStore extends RateLimitStore implements OnModuleInit, OnModuleDestroy {
  readonly storage = 'redis';
  private readonly logger = new Logger(RedisRateLimitStore.name);
  private readonly redis: Redis;
  private readonly scripts: RateLimitScripts;
  private readonly keyPrefix: string;
  private down = false;

  constructor(config: Pick<AppConfig, 'redisUrl' | 'redisKeyPrefix'>) {
    super();
    this.keyPrefix = config.redisKeyPrefix;
    this.redis = new Redis(config.redisUrl!, {
      keyPrefix: config.redisKeyPrefix,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: 2000,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    });
    this.redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.redis.defineCommand('rateLimitPeek', { numberOfKeys: 1, lua: PEEK_SCRIPT });
    this.redis.defineCommand('rateLimitRelease', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
    this.scripts = this.redis as unknown as RateLimitScripts;
    this.redis.on('error', (error: Error) => this.markDown(error));
    this.redis.on('ready', () => this.markUp());
  }

  async onModuleInit(): Promise<void> {
    // Nest may call this once per module that sees the provider: connect once.
    if (this.redis.status !== 'wait') return;
    const connected = this.redis.connect().catch((error: Error) => this.markDown(error));
    const waited = new Promise<void>((resolve) => setTimeout(resolve, STARTUP_WAIT_MS).unref());
    await Promise.race([connected, waited]);
  }

  async onModuleDestroy(): Promise<void> {
    this.redis.disconnect();
  }

  private markDown(error: Error): void {
    if (this.down) return;
    this.down = true;
    this.logger.warn({ err: error.message }, 'Rate-limit store (Redis) unreachable: fail-open routes run unlimited, fail-closed routes answer 503 until it is back');
  }

  private markUp(): void {
    if (!this.down) return;
    this.down = false;
    this.logger.log('Rate-limit store (Redis) reachable again');
  }

  /**
   * Redis out of reach, or up but refusing work (full, loading, a read-only replica): unavailable.
   * Any other reply error is a bug of ours (500).
   */
  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      if ((error as Error).name === 'ReplyError' && !UNAVAILABLE_REPLY.test((error as Error).message)) throw error;
      this.markDown(error as Error);
      throw new RateLimitStoreUnavailableError(error);
    }
  }

  /** Answers when Redis does (the readiness check). */
  ping(): Promise<unknown> {
    return this.redis.ping();
  }

  /** Whether the client last saw Redis as unreachable. */
  get isDown(): boolean {
    return this.down;
  }

  async hit(key: string, windowMs: number): Promise<RateLimitHit> {
    const [hits, ttlMs] = await this.call(() => this.scripts.rateLimitHit(key, windowMs));
    return { hits, resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)) };
  }

  async peek(key: string): Promise<RateLimitHit> {
    const [hits, ttlMs] = await this.call(() => this.scripts.rateLimitPeek(key));
    if (hits === 0 || ttlMs <= 0) return { hits: 0, resetSeconds: 0 };
    return { hits, resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)) };
  }

  async release(key: string): Promise<void> {
    await this.call(() => this.scripts.rateLimitRelease(key));
  }

  async reset(key: string): Promise<void> {
    await this.call(() => this.redis.del(key));
  }

  /** SCAN (not KEYS: it does not block the server) over the counters of each tracker. */
  async forgetTrackers(trackers: string[]): Promise<void> {
    for (const tracker of trackers) {
      const keys = await this.call(async () => {
        const found: string[] = [];
        // SCAN patterns are not prefixed by ioredis; the keys it returns carry the prefix.
        for await (const batch of this.redis.scanStream({ match: `${globLiteral(this.keyPrefix)}*:${globLiteral(tracker)}`, count: 1000 })) {
          found.push(...(batch as string[]).map((key) => key.slice(this.keyPrefix.length)));
        }
        return found;
      });
      if (keys.length > 0) await this.call(() => this.redis.del(...keys));
    }
  }
}
