import { setTimeout as sleep } from 'node:timers/promises';
import { Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Redis } from 'ioredis';
import type { AppConfig } from '#libs/config';
import { activeTracer, inSpanOf, SpanAttributes, SpanKind } from '#libs/tracing';
import { DependencyHealth } from '../health/dependency-health.js';
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
/** While Redis is down: one PING this often, each given this long to answer. */
const REDIS_PROBE_INTERVAL_MS = 250;
const REDIS_PROBE_TIMEOUT_MS = 250;
/**
 * Failed probes on a connection that looks open (a stalled server, a silent network) before it
 * is replaced: about 2 s. A resumed server answers on the old connection anyway; a new one also
 * covers a peer that is gone for good behind a connection nobody closed.
 */
const STALLED_PROBES_BEFORE_RECONNECT = 4;

const UNAVAILABLE_REPLY = /^(OOM|LOADING|READONLY|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS)\b/;

function globLiteral(value: string): string {
  return value.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/**
 * Fixed-window counters in Redis (REDIS_URL), shared by every replica: each hit is one Lua
 * script (INCR and the window's expiry together), so concurrent hits on any replica are counted
 * exactly. Keys are `REDIS_KEY_PREFIX` + the counter key and expire with their window.
 *
 * Its health is a DependencyHealth (up / down / probing). A failure that means Redis is out of
 * reach (refused, reset, connect or 1 s command timeout, a stalled server) marks it down; from
 * then on every call throws RateLimitStoreUnavailableError (503) at once, without touching Redis,
 * and RateLimitGuard lets it through on routes that fail open. A PING every 250 ms marks it up on
 * its first answer (not ioredis's `ready` event: a stalled-then-resumed server never reconnects),
 * replacing a connection that stays silent for ~2 s. The outage is logged once when it starts
 * and once when it ends.
 */
export class RedisRateLimitStore extends RateLimitStore implements OnModuleInit, OnModuleDestroy {
  readonly storage = 'redis';
  private readonly logger = new Logger(RedisRateLimitStore.name);
  private readonly redis: Redis;
  private readonly scripts: RateLimitScripts;
  private readonly keyPrefix: string;
  private readonly health: DependencyHealth;
  private stalledProbes = 0;

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
    this.health = new DependencyHealth({
      name: 'redis',
      probe: () => this.probe(),
      probeIntervalMs: REDIS_PROBE_INTERVAL_MS,
      probeTimeoutMs: REDIS_PROBE_TIMEOUT_MS,
      onDown: (error) =>
        this.logger.warn({ err: (error as Error)?.message }, 'Rate-limit store (Redis) unreachable: fail-open routes run unlimited, fail-closed routes answer 503 until it is back'),
      onUp: ({ downForMs, probes }) => this.logger.log({ downForMs, probes }, 'Rate-limit store (Redis) reachable again'),
    });
    // Connection errors (refused, reset) mean unreachable; only a probe says it is back.
    this.redis.on('error', (error: Error) => this.health.markDown(error));
  }

  async onModuleInit(): Promise<void> {
    // Nest may call this once per module that sees the provider: connect once.
    if (this.redis.status !== 'wait') return;
    this.health.start();
    const connected = this.redis.connect().catch((error: Error) => this.health.markDown(error));
    const waited = sleep(STARTUP_WAIT_MS, undefined, { ref: false });
    await Promise.race([connected, waited]);
  }

  async onModuleDestroy(): Promise<void> {
    this.health.stop();
    this.redis.disconnect();
  }

  /**
   * The probe while down: a PING on a connection ioredis has ready (its own reconnect loop runs
   * otherwise). A connection that looks open but stays silent for STALLED_PROBES_BEFORE_RECONNECT
   * probes is replaced (disconnect, reconnect through retryStrategy).
   */
  private async probe(): Promise<void> {
    const status = this.redis.status;
    if (status !== 'ready' && status !== 'connect') {
      this.stalledProbes = 0;
      throw new Error(`Redis connection is ${status}`);
    }
    try {
      if (status !== 'ready') throw new Error('Redis connection is not ready yet');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.redis.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('Redis PING timed out')), REDIS_PROBE_TIMEOUT_MS);
        }),
      ]).finally(() => clearTimeout(timer));
      this.stalledProbes = 0;
    } catch (error) {
      if (++this.stalledProbes >= STALLED_PROBES_BEFORE_RECONNECT) {
        this.stalledProbes = 0;
        this.logger.warn({ status }, 'Rate-limit store (Redis) connection silent: replacing it');
        this.redis.disconnect(true);
      }
      throw error;
    }
  }

  /**
   * Down: unavailable at once, without touching Redis. Out of reach (no connection, a command
   * timeout): marks it down. Up but refusing work (full, loading, a read-only replica):
   * unavailable for this call only (Redis answered, so it is not an outage). Any other reply
   * error is a bug of ours (500).
   */
  private call<T>(name: string, command: () => Promise<T>): Promise<T> {
    // In a traced request: a span per command (its name, never the key, which names a credential or an address).
    const tracer = activeTracer();
    return tracer ? inSpanOf(tracer, name, SpanKind.CLIENT, { [SpanAttributes.dbSystemName]: 'redis', [SpanAttributes.dbOperationName]: name }, () => this.send(command)) : this.send(command);
  }

  private async send<T>(command: () => Promise<T>): Promise<T> {
    if (!this.health.isUp) throw new RateLimitStoreUnavailableError(new Error(`Redis is ${this.health.state}`));
    try {
      return await command();
    } catch (error) {
      if ((error as Error).name === 'ReplyError') {
        if (UNAVAILABLE_REPLY.test((error as Error).message)) throw new RateLimitStoreUnavailableError(error);
        throw error;
      }
      this.health.markDown(error);
      throw new RateLimitStoreUnavailableError(error);
    }
  }

  /** Answers when Redis does (the readiness check); fails at once while it is down. */
  ping(): Promise<unknown> {
    if (!this.health.isUp) return Promise.reject(new Error(`Redis is ${this.health.state}`));
    return this.redis.ping();
  }

  /** Down or probing: calls fail fast until a probe passes (dependency_up{redis} 0). */
  get isDown(): boolean {
    return !this.health.isUp;
  }

  async hit(key: string, windowMs: number): Promise<RateLimitHit> {
    const [hits, ttlMs] = await this.call('rateLimitHit', () => this.scripts.rateLimitHit(key, windowMs));
    return { hits, resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)) };
  }

  async peek(key: string): Promise<RateLimitHit> {
    const [hits, ttlMs] = await this.call('rateLimitPeek', () => this.scripts.rateLimitPeek(key));
    if (hits === 0 || ttlMs <= 0) return { hits: 0, resetSeconds: 0 };
    return { hits, resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)) };
  }

  async release(key: string): Promise<void> {
    await this.call('rateLimitRelease', () => this.scripts.rateLimitRelease(key));
  }

  async reset(key: string): Promise<void> {
    await this.call('DEL', () => this.redis.del(key));
  }

  /** SCAN (not KEYS: it does not block the server) over the counters of each tracker. */
  async forgetTrackers(trackers: string[]): Promise<void> {
    for (const tracker of trackers) {
      const keys = await this.call('SCAN', async () => {
        const found: string[] = [];
        // SCAN patterns are not prefixed by ioredis; the keys it returns carry the prefix.
        for await (const batch of this.redis.scanStream({ match: `${globLiteral(this.keyPrefix)}*:${globLiteral(tracker)}`, count: 1000 })) {
          found.push(...(batch as string[]).map((key) => key.slice(this.keyPrefix.length)));
        }
        return found;
      });
      if (keys.length > 0) await this.call('DEL', () => this.redis.del(...keys));
    }
  }
}
