import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import type { BatchStatus } from './dto/question-batch.dto.js';

/**
 * A batch of questions for one recipient. The share token is never stored in the clear:
 * its SHA-256 is the lookup key, and an AES-256-GCM sealed copy lets the link be handed out again.
 */
@Entity('question_batches')
export class QuestionBatchEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'site_id', type: 'uuid' })
  siteId: string;

  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId: string;

  @Column({ type: 'text' })
  title: string;

  /** Sanitised when stored. */
  @Column({ name: 'intro_html', type: 'text', default: '' })
  introHtml: string;

  @Column({ name: 'notify_email', type: 'text' })
  notifyEmail: string;

  @Column({ type: 'text', default: 'draft' })
  status: BatchStatus;

  @Column({ name: 'share_token_hash', type: 'text' })
  shareTokenHash: string;

  @Column({ name: 'share_token_sealed', type: 'text' })
  shareTokenSealed: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'sent_at', type: 'timestamptz', nullable: true })
  sentAt: Date | null;

  @Column({ name: 'opened_at', type: 'timestamptz', nullable: true })
  openedAt: Date | null;

  @Column({ name: 'answered_at', type: 'timestamptz', nullable: true })
  answeredAt: Date | null;

  /** When notifyEmail was last told about the answers; a later submit mails only if answers changed since. */
  @Column({ name: 'notified_at', type: 'timestamptz', nullable: true })
  notifiedAt: Date | null;
}

@Entity('batch_questions')
export class BatchQuestionEntity {
  @PrimaryColumn({ name: 'batch_id', type: 'uuid' })
  batchId: string;

  @PrimaryColumn({ type: 'integer' })
  n: number;

  @Column({ type: 'text' })
  title: string;

  /** Sanitised when stored. */
  @Column({ type: 'text' })
  html: string;
}

@Entity('batch_answers')
export class BatchAnswerEntity {
  @PrimaryColumn({ name: 'batch_id', type: 'uuid' })
  batchId: string;

  @PrimaryColumn({ type: 'integer' })
  n: number;

  /** Plain text, 1..20,000 characters. */
  @Column({ type: 'text' })
  text: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
