import { isDetailFor, type ProtectedResource } from '#libs/identity';

/**
 * How a grant records a feedback site an app may use: an RFC 9396 authorization detail per site
 * the user ticked on the consent page, added to the grant, which oidc-provider's rich
 * authorization requests copy into the access token's `authorization_details` claim.
 */
const FEEDBACK_SITE_DETAIL_TYPE = 'feedback_site';

export type FeedbackSiteAction = 'read' | 'write';

export interface FeedbackSiteDetail {
  type: typeof FEEDBACK_SITE_DETAIL_TYPE;
  /** The feedback MCP resource: the detail holds for its tokens only. */
  locations: [string];
  /** The site id (the account's own site, checked when the user chose it). */
  identifier: string;
  actions: FeedbackSiteAction[];
}

export function feedbackSiteDetail(resource: ProtectedResource, siteId: string, actions: FeedbackSiteAction[]): FeedbackSiteDetail {
  return { type: FEEDBACK_SITE_DETAIL_TYPE, locations: [resource.resource], identifier: siteId, actions };
}

/**
 * The site details of a verified token's `authorization_details` for this resource, one per site
 * (a grant may hold several sites the user ticked); malformed details are ignored.
 */
export function feedbackSiteDetailsOf(details: unknown, resource: ProtectedResource): FeedbackSiteDetail[] {
  if (!Array.isArray(details)) return [];
  const sites = details.filter(
    (detail): detail is FeedbackSiteDetail =>
      typeof detail === 'object' &&
      detail !== null &&
      detail.type === FEEDBACK_SITE_DETAIL_TYPE &&
      isDetailFor(detail, resource.resource) &&
      typeof detail.identifier === 'string' &&
      Array.isArray(detail.actions),
  );
  return sites.filter((detail, i) => sites.findIndex((other) => other.identifier === detail.identifier) === i);
}
