import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { PeriodicTask } from '#libs/common';
import { OAuthSigningKeys } from '../oauth-resource/oauth-signing-keys.service.js';
import { OAUTH_TTL, OAuthProvider } from './oauth-provider.service.js';

/**
 * When the access tokens' signing key is replaced, and when a replaced one goes.
 * - A new key is added once the newest is `maxAgeSeconds` old (one replica adds it: advisory lock).
 * - Every replica checks every `checkIntervalMs` and, when the keys changed, rebuilds its
 *   authorization server with all of them, newest first: the newest signs, all are in the JWKS.
 * - A key whose successor has signed for `retireAfterSeconds` is deleted: by then every replica has
 *   switched (one check interval) and every token it signed has expired (one access-token lifetime).
 * Verifiers on either service accept every stored key and re-read them on an unknown kid.
 * Retiring a key at once (compromised): delete its row. Every verifier checks the token's kid is
 * still stored (with its grant, one query), and every replica's authorization server compares its
 * keys with the stored ones before each request (OAuthProvider.followStoredSigningKeys).
 */
const OAUTH_SIGNING_KEY_ROTATION = {
  maxAgeSeconds: 30 * 24 * 60 * 60,
  checkIntervalMs: 10 * 60_000,
  retireAfterSeconds: 2 * OAUTH_TTL.accessToken + 10 * 60,
} as const;

@Injectable()
export class OAuthSigningKeyRotation implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('OAuth');
  /** Every replica checks the key set on a timer (adding a key takes an advisory lock: one replica acts). */
  private readonly timer = new PeriodicTask('OAuth signing key check', OAUTH_SIGNING_KEY_ROTATION.checkIntervalMs, () => this.check(), this.logger);

  constructor(
    private readonly keys: OAuthSigningKeys,
    private readonly oauth: OAuthProvider,
  ) {}

  onModuleInit(): void {
    this.timer.start();
  }

  onModuleDestroy(): void {
    this.timer.stop();
  }

  /** Adds a key if the newest is too old, retires superseded ones, and switches this replica to the current set. */
  async check(): Promise<void> {
    if (await this.keys.rotateIfOlderThan(OAUTH_SIGNING_KEY_ROTATION.maxAgeSeconds)) this.logger.log('OAuth signing key added');
    const retired = await this.keys.retireKeysSupersededFor(OAUTH_SIGNING_KEY_ROTATION.retireAfterSeconds);
    if (retired > 0) {
      this.logger.log({ retired }, 'OAuth signing keys retired');
      this.keys.forgetVerificationKeys();
    }
    await this.oauth.followStoredSigningKeysIfBuilt();
  }
}
