import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A refresh token that has been rotated out of its session. Presenting it again is reuse
 * (theft) and revokes the session, except for a same-key retry within the grace.
 */
@Entity('refresh_token_history')
export class RefreshTokenHistoryEntity {
  @PrimaryColumn({ name: 'token_hash', type: 'text' })
  tokenHash: string;

  @Column({ name: 'session_id', type: 'uuid' })
  sessionId: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ name: 'successor_hash', type: 'text' })
  successorHash: string;

  @Column({ name: 'retry_key_hash', type: 'text', nullable: true })
  retryKeyHash: string | null;

  @Column({ name: 'successor_sealed', type: 'text', nullable: true })
  successorSealed: string | null;

  @Column({ name: 'rotated_at', type: 'timestamptz' })
  rotatedAt: Date;
}
