import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { FeedbackTokenKind } from './feedback-token.format.js';

/** An export token: only its SHA-256 is stored. Rotation deletes the row and inserts a new one. */
@Entity('feedback_tokens')
export class FeedbackTokenEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId: string;

  /** Null for the account's portfolio token. */
  @Column({ name: 'site_id', type: 'uuid', nullable: true })
  siteId: string | null;

  @Column({ type: 'text' })
  kind: FeedbackTokenKind;

  @Column({ name: 'token_hash', type: 'text' })
  tokenHash: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
