import { Injectable } from '@nestjs/common';
import { Database } from '#libs/database';
import { USER_COLUMNS, type UserRow } from './account.rows.js';

/** The account's own row by its id: the one read every identity feature (and an app's account routes) shares. */
@Injectable()
export class UsersRepository {
  constructor(private readonly sql: Database) {}

  async findById(userId: string): Promise<UserRow | null> {
    const rows = await this.sql.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [userId]);
    return rows[0] ?? null;
  }
}
