import { Injectable } from '@nestjs/common';
import type { Transaction } from '#libs/database';
import { OAuthAccessRepository, type RevokedOAuthApp } from './oauth-access.repository.js';

/**
 * The writing side of the OAuth grants both services check: what a password change or reset
 * does to the account's connected apps. Call inside the transaction that changes the password,
 * then `CredentialRevocations.announce(userId)` after the commit, as for sessions.
 */
@Injectable()
export class AccountOAuthGrants {
  constructor(private readonly repository: OAuthAccessRepository) {}

  /** Revokes every grant of the account (their access and refresh tokens stop at once); answers the apps disconnected. */
  revokeAll(tx: Transaction, userId: string): Promise<RevokedOAuthApp[]> {
    return this.repository.deleteAccountGrants(tx, userId);
  }
}
