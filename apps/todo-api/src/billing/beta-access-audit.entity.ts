import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type BetaAccessAction = 'grant' | 'revoke';

/** One administrator grant or revocation of lifetime beta access. */
@Entity('beta_access_audit')
export class BetaAccessAuditEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ type: 'text' })
  action: BetaAccessAction;

  /** False for a grant of access the user already had (grant is idempotent). */
  @Column({ type: 'boolean' })
  changed: boolean;

  @Column({ name: 'request_id', type: 'text', nullable: true })
  requestId: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
