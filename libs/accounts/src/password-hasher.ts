import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import bcrypt from 'bcrypt';
import { APP_CONFIG, type AppConfig } from '#libs/config';

/**
 * bcrypt reads at most 72 bytes, and a 128-character password can be 512 UTF-8 bytes.
 * Rather than truncate silently, every password is pre-hashed with SHA-384 (64 base64
 * characters) so all of it counts.
 */
export function prehashPassword(password: string): string {
  return createHash('sha384').update(password, 'utf8').digest('base64');
}

@Injectable()
export class PasswordHasher {
  private readonly cost: number;
  /** A hash at the configured cost, made on first need, to compare unknown accounts against. */
  private dummyHash?: Promise<string>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.cost = config.bcryptCost;
  }

  hash(password: string): Promise<string> {
    return bcrypt.hash(prehashPassword(password), this.cost);
  }

  verify(password: string, hash: string): Promise<boolean> {
    return bcrypt.compare(prehashPassword(password), hash);
  }

  /**
   * Burns the same time as a real check, for unknown accounts, so response time does not
   * tell whether an e-mail is registered.
   */
  async verifyNothing(password: string): Promise<false> {
    this.dummyHash ??= bcrypt.hash(randomBytes(16).toString('hex'), this.cost);
    await bcrypt.compare(prehashPassword(password), await this.dummyHash);
    return false;
  }
}
