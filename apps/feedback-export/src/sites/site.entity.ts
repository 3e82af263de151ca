import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A site of an owner: the widget posts to it with its public siteKey; tokens export its feedback. */
@Entity('sites')
export class SiteEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId: string;

  @Column({ type: 'text' })
  name: string;

  /** Stable, filesystem-safe, unique within the account; never changes after creation. */
  @Column({ type: 'text' })
  slug: string;

  @Column({ name: 'site_key', type: 'text' })
  siteKey: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
