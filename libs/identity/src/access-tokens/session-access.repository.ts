import { Injectable } from '@nestjs/common';
import { PreparedQueries } from '#libs/database';

/** The session row every access token is checked against, on both services. */
@Injectable()
export class SessionAccessRepository {
  constructor(private readonly prepared: PreparedQueries) {}

  /** The hot-path check of every JWT request: the token's session is neither revoked nor expired. */
  async isSessionLive(userId: string, sessionId: string): Promise<boolean> {
    const rows = await this.prepared.query(`SELECT 1 FROM sessions WHERE user_id = $1 AND id = $2 AND revoked_at IS NULL AND expires_at > now()`, [userId, sessionId]);
    return rows.length > 0;
  }
}
