import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The outstanding e-mailed reset code of a user (at most one): stored as a keyed hash. */
@Entity('password_reset_codes')
export class PasswordResetCodeEntity {
  @PrimaryColumn({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ name: 'code_hash', type: 'text' })
  codeHash: string;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}

/** A single-use reset token handed out for a correct code: stored as a SHA-256. */
@Entity('password_reset_tokens')
export class PasswordResetTokenEntity {
  @PrimaryColumn({ name: 'token_hash', type: 'text' })
  tokenHash: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt: Date | null;
}
