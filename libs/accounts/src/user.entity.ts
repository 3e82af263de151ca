import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type Privilege = 'user' | 'admin';

/** An account; shared by both services (the feedback service's site owners are these users). */
@Entity('users')
export class UserEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'user_key', type: 'text' })
  userKey: string;

  @Column({ type: 'text', nullable: true })
  name: string | null;

  @Column({ type: 'text' })
  username: string;

  /** As typed at signup: mail goes here. */
  @Column({ type: 'text' })
  email: string;

  /** canonicalEmail(email): what identifies the account (unique). */
  @Column({ name: 'email_canonical', type: 'text' })
  emailCanonical: string;

  @Column({ name: 'password_hash', type: 'text' })
  passwordHash: string;

  @Column({ type: 'text', default: 'user' })
  privilege: Privilege;

  @Column({ name: 'email_confirmed', type: 'integer', default: 0 })
  emailConfirmed: number;

  @Column({ name: 'date_joined', type: 'timestamptz', default: () => 'now()' })
  dateJoined: Date;

  @Column({ name: 'password_changed_at', type: 'timestamptz', default: () => 'now()' })
  passwordChangedAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
