import { AppException, ErrorCode } from '#libs/common';

/**
 * What a caller may do on one site: its owner, the site, and the scope (a site token's kind,
 * or 'write' for the signed-in owner). Services take this, never a token principal (a site
 * principal is one, so token routes pass theirs as is).
 */
export interface SiteAccess {
  ownerId: string;
  siteId: string;
  scope: 'read' | 'write';
}

/** The owner acting on their own site (dashboard): full rights, no token involved. */
export function ownerAccess(ownerId: string, siteId: string): SiteAccess {
  return { ownerId, siteId, scope: 'write' };
}

/** The one check of the write scope in the services: `action` names what needs it. */
export function requireWriteScope(access: SiteAccess, action: string): void {
  if (access.scope !== 'write') throw new AppException(ErrorCode.INVALID_TOKEN, `${action} needs the site write token (wk_)`);
}
