import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import type { SiteRow } from '../sites.repository.js';

export const SLUG_PATTERN = /^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;

export class CreateSiteDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'Marketing site' })
  @IsString()
  @Length(1, 100)
  @Matches(/\S/, { message: 'name must not be blank' })
  name: string;

  @ApiProperty({
    required: false,
    pattern: SLUG_PATTERN.source,
    example: 'marketing-site',
    description:
      'Stable, filesystem-safe identifier, unique within the account: lowercase letters, digits and inner hyphens, 1..64 characters. ' +
      'Derived from the name when absent. It never changes afterwards.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64, { message: 'slug must be 1..64 lowercase letters, digits or inner hyphens' })
  @Matches(SLUG_PATTERN, { message: 'slug must be 1..64 lowercase letters, digits or inner hyphens' })
  slug?: string;
}

export class UpdateSiteDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'Marketing site (EU)', description: 'The slug is permanent; only the name changes.' })
  @IsString()
  @Length(1, 100)
  @Matches(/\S/, { message: 'name must not be blank' })
  name: string;
}

export class SiteDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'Marketing site' })
  name: string;

  @ApiProperty({ example: 'marketing-site', description: 'Stable, filesystem-safe, unique within the account' })
  slug: string;

  @ApiProperty({ example: 'site_Qm9vZ2xlLXNpdGUta2V5LTAx', description: 'Public key for the widget (data-site-key); grants nothing but submitting feedback' })
  siteKey: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When the current read token (sk_) was issued; null when none' })
  readTokenCreatedAt: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When the current write token (wk_) was issued; null when none' })
  writeTokenCreatedAt: string | null;
}

export function toSiteDto(row: SiteRow): SiteDto {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    siteKey: row.siteKey,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
    readTokenCreatedAt: row.readTokenCreatedAt ? new Date(row.readTokenCreatedAt).toISOString() : null,
    writeTokenCreatedAt: row.writeTokenCreatedAt ? new Date(row.writeTokenCreatedAt).toISOString() : null,
  };
}

export class CreatedSiteDto {
  @ApiProperty({ type: SiteDto })
  site: SiteDto;

  @ApiProperty({ example: 'site_Qm9vZ2xlLXNpdGUta2V5LTAx', description: 'The public widget key of the site (also in site.siteKey)' })
  siteKey: string;
}

export class SiteDataDto {
  @ApiProperty({ type: SiteDto })
  site: SiteDto;
}

export class SiteListDto {
  @ApiProperty({ type: [SiteDto] })
  sites: SiteDto[];
}

export class SiteDeletedDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: [true] })
  deleted: true;
}

export class IssuedTokenDto {
  @ApiProperty({ description: 'The full token (sk_, wk_ or ok_), shown only this once; only its hash is stored. The previous token stopped working.', example: 'sk_2aF…' })
  token: string;
}

export class IssuedIdentitySecretDto {
  @ApiProperty({
    example: 'idsec_3q2-7wE…',
    description:
      "The site's new identity secret, shown only this once: keep it on your server and sign reporter tokens with it (JWT HS256). " +
      'Tokens signed with the previous secret are refused from now on.',
  })
  secret: string;
}

export class PortfolioTokenStateDto {
  @ApiProperty({ type: String, nullable: true, format: 'date-time', example: '2026-11-21T07:15:42.000Z', description: 'When the current portfolio token was issued; null when the account has none' })
  createdAt: string | null;
}

/** A site a credential may act on, as the MCP tool list_sites names it, with the scope the credential holds there. */
export interface AccessibleSite {
  id: string;
  slug: string;
  name: string;
  scope: 'read' | 'write';
}
