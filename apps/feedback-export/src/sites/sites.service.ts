import { Inject, Injectable } from '@nestjs/common';
import { AppException, ErrorCode, uniqueViolationConstraint, type SecretSealer } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { CreatedSiteDto, SiteDto, toSiteDto, type AccessibleSite, type CreateSiteDto } from './dto/site.dto.js';
import type { SiteAccess } from '../token-auth/site-access.js';
import { generateFeedbackToken, generateSiteKey } from '../token-auth/feedback-token.format.js';
import { identitySecretSealer, newIdentitySecret } from './identity-secret.js';
import { QUOTA_CONFIG, type QuotaConfig } from './quota.config.js';
import { SitesRepository, type SiteRow } from './sites.repository.js';

/** Names Windows refuses as file names, whatever the extension: a slug must work as a directory name everywhere. */
const RESERVED_SLUGS = new Set(['con', 'prn', 'aux', 'nul', ...Array.from({ length: 9 }, (_, i) => `com${i + 1}`), ...Array.from({ length: 9 }, (_, i) => `lpt${i + 1}`)]);
const DERIVED_SLUG_MAX = 56;

/** A filesystem-safe slug from a display name: ASCII lowercase, digits and single inner hyphens. */
export function slugFromName(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, DERIVED_SLUG_MAX)
    // Runs of anything else are one hyphen by now: trim one at each end (`-+$` would rescan every run).
    .replace(/^-|-$/g, '');
  if (!base) return 'site';
  return RESERVED_SLUGS.has(base) ? `${base}-site` : base;
}

@Injectable()
export class SitesService {
  private readonly identitySealer: SecretSealer;

  constructor(
    private readonly sites: SitesRepository,
    @Inject(QUOTA_CONFIG) private readonly quotas: QuotaConfig,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.identitySealer = identitySecretSealer(config.jwtSecret);
  }

  async list(ownerId: string): Promise<SiteDto[]> {
    return (await this.sites.listByOwner(ownerId)).map(toSiteDto);
  }

  /** The sites a credential may act on (a site token's own, an OAuth grant's chosen ones), each with the scope it holds there; sites since deleted drop out. */
  async listAccessible(ownerId: string, accesses: readonly SiteAccess[]): Promise<AccessibleSite[]> {
    if (accesses.length === 0) return [];
    const owned = await this.sites.listByOwner(ownerId);
    return owned.flatMap((row) => {
      const access = accesses.find((each) => each.siteId === row.id);
      return access ? [{ id: row.id, slug: row.slug, name: row.name, scope: access.scope }] : [];
    });
  }

  async get(ownerId: string, siteId: string): Promise<SiteDto> {
    return toSiteDto(await this.requireOwned(ownerId, siteId));
  }

  async create(ownerId: string, input: CreateSiteDto): Promise<CreatedSiteDto> {
    const name = input.name.trim();
    let slug: string;
    if (input.slug !== undefined) {
      if (RESERVED_SLUGS.has(input.slug)) {
        throw new AppException(ErrorCode.VALIDATION_ERROR, 'This slug is reserved', { fields: [{ field: 'slug', messages: ['slug is a reserved file name'] }] });
      }
      slug = input.slug;
    } else {
      slug = await this.freeSlug(ownerId, slugFromName(name));
    }
    let siteId: string | undefined;
    try {
      siteId = await this.sites.insertWithinQuota(ownerId, { name, slug, siteKey: generateSiteKey() }, this.quotas.maxSitesPerAccount);
    } catch (error) {
      if (uniqueViolationConstraint(error) === 'sites_owner_id_slug_key') {
        throw new AppException(ErrorCode.CONFLICT, `The slug "${slug}" is already used by another of your sites`);
      }
      throw error;
    }
    if (siteId === undefined) {
      const limit = this.quotas.maxSitesPerAccount;
      throw new AppException(ErrorCode.QUOTA_EXCEEDED, `This account already has ${limit} sites, the most it may have; delete one first`, { quota: 'sitesPerAccount', limit });
    }
    const site = toSiteDto(await this.requireOwned(ownerId, siteId));
    return { site, siteKey: site.siteKey };
  }

  async rename(ownerId: string, siteId: string, name: string): Promise<SiteDto> {
    if (!(await this.sites.rename(ownerId, siteId, name.trim()))) throw this.notFound();
    return this.get(ownerId, siteId);
  }

  async delete(ownerId: string, siteId: string): Promise<{ id: string; deleted: true }> {
    if (!(await this.sites.delete(ownerId, siteId))) throw this.notFound();
    return { id: siteId, deleted: true };
  }

  async rotateSiteToken(ownerId: string, siteId: string, kind: 'read' | 'write'): Promise<{ token: string }> {
    const { token, hash } = generateFeedbackToken(kind);
    if (!(await this.sites.replaceSiteToken(ownerId, siteId, kind, hash))) throw this.notFound();
    return { token };
  }

  async rotatePortfolioToken(ownerId: string): Promise<{ token: string }> {
    const { token, hash } = generateFeedbackToken('portfolio');
    await this.sites.replacePortfolioToken(ownerId, hash);
    return { token };
  }

  /** Whether the account has a portfolio token and since when (never the token itself). */
  async portfolioTokenState(ownerId: string): Promise<{ createdAt: string | null }> {
    const at = await this.sites.portfolioTokenCreatedAt(ownerId);
    return { createdAt: at ? new Date(at).toISOString() : null };
  }

  /**
   * A new identity secret for signing reporter tokens (shown only this once; stored sealed, since the server
   * reads it back to verify). Tokens signed with the previous secret are refused from now on.
   */
  async rotateIdentitySecret(ownerId: string, siteId: string): Promise<{ secret: string }> {
    const secret = newIdentitySecret();
    if (!(await this.sites.replaceIdentitySecret(ownerId, siteId, this.identitySealer.seal(secret)))) throw this.notFound();
    return { secret };
  }

  /**
   * The site with this public widget key (undefined when none) and its identity secret opened: null when the
   * owner never made one, or when it no longer opens (JWT_SECRET changed: the owner must rotate it).
   */
  async findBySiteKey(siteKey: string): Promise<{ id: string; ownerId: string; identitySecret: string | null } | undefined> {
    const site = await this.sites.findBySiteKey(siteKey);
    if (!site) return undefined;
    const identitySecret = site.identitySecretSealed === null ? null : (this.identitySealer.open(site.identitySecretSealed) ?? null);
    return { id: site.id, ownerId: site.ownerId, identitySecret };
  }

  /** Who owns the site and its name (undefined when it is gone): a site's webhook endpoints belong to the site. */
  ownerAndName(siteId: string): Promise<{ ownerId: string; name: string } | undefined> {
    return this.sites.ownerAndName(siteId);
  }

  /** Every site of the owner as the portfolio lists them. */
  listEntries(ownerId: string): Promise<Array<{ id: string; slug: string; name: string }>> {
    return this.sites.listEntries(ownerId);
  }

  /** The owner's site; 404 NOT_FOUND when there is none (another owner's site is the same as a missing one). */
  async requireOwned(ownerId: string, siteId: string): Promise<SiteRow> {
    const row = await this.sites.findOwned(ownerId, siteId);
    if (!row) throw this.notFound();
    return row;
  }

  private notFound(): AppException {
    return new AppException(ErrorCode.NOT_FOUND, 'No such site');
  }

  /** `base`, or `base-2`, `base-3`, … whichever is free in the account. */
  private async freeSlug(ownerId: string, base: string): Promise<string> {
    const taken = new Set(await this.sites.slugsLike(ownerId, base));
    if (!taken.has(base)) return base;
    for (let n = 2; ; n++) {
      const candidate = `${base}-${n}`;
      if (!taken.has(candidate)) return candidate;
    }
  }
}
