import { Injectable, Logger } from '@nestjs/common';

type RevocationListener = (userId: string) => Promise<void>;

/**
 * Where a change that can end a user's credentials is announced, after it has committed: an API
 * key revoked or rotated, sessions signed out (logout, password change or reset, refresh-token
 * theft), API access lost (beta revoked, subscription lapsed). Whatever keeps authenticated
 * responses open (the realtime todo stream) listens and re-checks them; this class knows
 * nothing of streams, so the account features need not depend on the todo feature.
 */
@Injectable()
export class CredentialRevocations {
  private readonly logger = new Logger(CredentialRevocations.name);
  private readonly listeners: RevocationListener[] = [];

  listen(listener: RevocationListener): void {
    this.listeners.push(listener);
  }

  /**
   * Never throws: the change itself has committed, so its request must not fail for this.
   * A notice that is lost here is made up for by the listeners' periodic re-check.
   */
  async announce(userId: string): Promise<void> {
    await Promise.all(
      this.listeners.map((listener) =>
        listener(userId).catch((error: Error) => this.logger.warn({ userId, err: error.message }, 'Could not announce a credential change; open streams re-check on their timer')),
      ),
    );
  }
}
