import { Injectable } from '@nestjs/common';
import { OAuthConsentChoice, type ConsentOption, type ProtectedResource } from '#libs/identity';
import { Database } from '#libs/database';
import { FEEDBACK_SCOPES } from './feedback-mcp.resource.js';
import { feedbackSiteDetail, type FeedbackSiteAction } from './feedback-site-grant.js';

/**
 * feedback-export's choice on the consent page of the authorization server todo-api mounts:
 * feedback:read / feedback:write hold for the sites of the account the user ticks once signed in
 * (one database for both services, so the page reads the account's sites here).
 */
@Injectable()
export class FeedbackSiteConsentRepository extends OAuthConsentChoice {
  readonly scopes: readonly string[] = [FEEDBACK_SCOPES.read, FEEDBACK_SCOPES.write];
  override readonly multiple = true;
  readonly field = 'site';
  readonly legend = 'Sites';
  readonly chooseError = 'Choose at least one site the app may use.';
  readonly noOptionsError = 'Your account has no feedback site yet: untick the site permissions, or create a site first.';

  constructor(private readonly sql: Database) {
    super();
  }

  prompt(clientName: string): string {
    return `Choose the sites ${clientName} may use.`;
  }

  /** The signed-in account's feedback sites. */
  async options(ownerId: string): Promise<ConsentOption[]> {
    const sites = await this.sql.query<{ id: string; name: string; slug: string }>(`SELECT id, name, slug FROM sites WHERE owner_id = $1 ORDER BY created_at, id`, [ownerId]);
    return sites.map((site) => ({ id: site.id, name: site.name, detail: site.slug }));
  }

  detail(resource: ProtectedResource, siteId: string, chosenScopes: readonly string[]): Record<string, unknown> {
    const actions: FeedbackSiteAction[] = chosenScopes.includes(FEEDBACK_SCOPES.write) ? ['read', 'write'] : ['read'];
    return { ...feedbackSiteDetail(resource, siteId, actions) };
  }
}
