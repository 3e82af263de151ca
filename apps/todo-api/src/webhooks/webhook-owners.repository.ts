import { Injectable } from '@nestjs/common';
import { Database } from '#libs/database';

/** The owner of todo-api's webhook endpoints is an account: where to reach it. */
@Injectable()
export class WebhookOwnersRepository {
  constructor(private readonly sql: Database) {}

  async emailOf(userId: string): Promise<string | undefined> {
    const rows = await this.sql.query<{ email: string }>(`SELECT email FROM users WHERE id = $1`, [userId]);
    return rows[0]?.email;
  }
}
