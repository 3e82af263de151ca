import { isDetailFor, type ProtectedResource } from '#libs/identity';

/**
 * How a grant records the one feedback site an app may use: an RFC 9396 authorization detail
 * the user's choice on the consent page adds to the grant, which oidc-provider's rich
 * authorization requests copy into the access token's `authorization_details` claim.
 */
export const FEEDBACK_SITE_DETAIL_TYPE = 'feedback_site';

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

/** The site detail of a verified token's `authorization_details`, if it holds exactly one well-formed one for this resource. */
export function feedbackSiteDetailOf(details: unknown, resource: ProtectedResource): FeedbackSiteDetail | undefined {
  if (!Array.isArray(details)) return undefined;
  const sites = details.filter(
    (detail): detail is FeedbackSiteDetail =>
      typeof detail === 'object' &&
      detail !== null &&
      detail.type === FEEDBACK_SITE_DETAIL_TYPE &&
      isDetailFor(detail, resource.resource) &&
      typeof detail.identifier === 'string' &&
      Array.isArray(detail.actions),
  );
  return sites.length === 1 ? sites[0] : undefined;
}
