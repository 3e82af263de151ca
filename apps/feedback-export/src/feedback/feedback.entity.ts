import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export const FEEDBACK_TYPES = ['feedback', 'feature_request', 'bug'] as const;
export const FEEDBACK_STATUSES = ['new', 'triaged', 'resolved'] as const;
export type FeedbackType = (typeof FEEDBACK_TYPES)[number];
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];

/**
 * One piece of widget feedback. `createdAt` is handed out by the commit clock (see
 * FeedbackRepository.insertMany), so it increases in commit order within its owner and cursors never skip a row.
 */
@Entity('feedback')
export class FeedbackEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'site_id', type: 'uuid' })
  siteId: string;

  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId: string;

  @Column({ type: 'text' })
  type: FeedbackType;

  @Column({ type: 'text' })
  message: string;

  @Column({ type: 'smallint', nullable: true })
  rating: number | null;

  @Column({ name: 'page_url', type: 'text' })
  pageUrl: string;

  @Column({ type: 'text', default: 'new' })
  status: FeedbackStatus;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
