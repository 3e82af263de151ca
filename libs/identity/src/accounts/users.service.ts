import { Injectable } from '@nestjs/common';
import type { UserRow } from './account.rows.js';
import { UsersRepository } from './users.repository.js';

/** The accounts themselves, as the other features of the wing (and an app's account routes) read them. */
@Injectable()
export class UsersService {
  constructor(private readonly repository: UsersRepository) {}

  findById(userId: string): Promise<UserRow | null> {
    return this.repository.findById(userId);
  }
}
