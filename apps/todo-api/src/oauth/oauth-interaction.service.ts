import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { errors } from 'oidc-provider';
import { FEEDBACK_SCOPES, feedbackSiteDetail, isDetailFor, type FeedbackSiteAction } from '#libs/accounts';
import { AppException, ErrorCode, HTML_PAGE_HEADERS } from '#libs/common';
import { AuthService } from '../auth/auth.service.js';
import type { ClientInfo } from '../sessions/sessions.service.js';
import { SecurityActivityService } from '../security-activity/security-activity.service.js';
import { OAuthConsentSitesRepository, type ConsentSite } from './oauth-consent-sites.repository.js';
import { OAuthProvider } from './oauth-provider.js';
import { OAuthRecordsRepository } from './oauth-records.repository.js';
import { renderOAuthErrorPage, renderSignInPage, signInPageCsp, SIGN_IN_STYLESHEET, type SignInView } from './oauth-pages.js';

type InteractionDetails = Awaited<ReturnType<OAuthProvider['provider']['interactionDetails']>>;

/** The account this browser signed in as on the first step, while it chooses a feedback site. */
function signedInAccount(details: InteractionDetails): string | undefined {
  const accountId = (details.result as { login?: { accountId?: unknown } } | undefined)?.login?.accountId;
  return typeof accountId === 'string' ? accountId : undefined;
}

function sitesView(sites: ConsentSite[], chosen?: unknown): SignInView['sites'] {
  return sites.map((site) => ({ ...site, checked: site.id === chosen }));
}

/** The sign-in form as posted. */
export interface SignInForm {
  email?: unknown;
  password?: unknown;
  scope?: unknown;
  /** The feedback site chosen for feedback:read / feedback:write (second step, once signed in). */
  site?: unknown;
  decision?: unknown;
}

interface Request_ {
  /** What the app asked for, resolved against the resource it named. */
  resource: string;
  requestedScopes: string[];
  protocolScopes: string[];
  clientName: string;
  /** The client_name the client itself gave (registration or metadata document), if any. */
  clientClaimedName?: string;
  redirectUri: string;
}

/** The feedback scopes that hold for one site, chosen on the page. */
const SITE_SCOPES: readonly string[] = [FEEDBACK_SCOPES.read, FEEDBACK_SCOPES.write];

const asStrings = (value: unknown): string[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((item): item is string => typeof item === 'string');

/**
 * The authorization server's one page: sign in (the account system's own password check and
 * failed-login limits) and choose which of the asked scopes to allow, or deny. Feedback site
 * scopes hold for one site of the account: once the password is right the page asks which (the
 * sign-in is kept in the interaction meanwhile), and the grant records it as an RFC 9396
 * authorization detail. Then the authorization request carries on (oidc-provider) back to the app.
 */
@Injectable()
export class OAuthInteractionService {
  constructor(
    private readonly oauth: OAuthProvider,
    private readonly auth: AuthService,
    private readonly sites: OAuthConsentSitesRepository,
    private readonly records: OAuthRecordsRepository,
    private readonly activity: SecurityActivityService,
  ) {}

  stylesheet(response: Response): void {
    response.status(200).type('text/css').setHeader('Cache-Control', 'public, max-age=3600');
    response.send(SIGN_IN_STYLESHEET);
  }

  async show(request: Request, response: Response): Promise<void> {
    const found = await this.load(request, response);
    if (!found) return;
    const { details, asked } = found;
    const signedIn = signedInAccount(details);
    const sites = signedIn && asked.requestedScopes.some((scope) => SITE_SCOPES.includes(scope)) ? await this.sites.listSites(signedIn) : undefined;
    this.page(response, 200, details, asked, { scopes: asked.requestedScopes.map((scope) => ({ scope, checked: true })), sites: sites && sitesView(sites) });
  }

  async submit(request: Request, response: Response, form: SignInForm, client: ClientInfo): Promise<void> {
    const found = await this.load(request, response);
    if (!found) return;
    const { details, asked } = found;
    const provider = this.oauth.provider;
    if (form.decision !== 'allow') {
      await provider.interactionFinished(request, response, { error: 'access_denied', error_description: 'The user did not allow access' }, { mergeWithLastSubmission: false });
      return;
    }
    const chosen = new Set(asStrings(form.scope));
    const email = typeof form.email === 'string' ? form.email : '';
    const signedIn = signedInAccount(details);
    const scopesView = () => asked.requestedScopes.map((scope) => ({ scope, checked: chosen.has(scope) }));
    let sites: ConsentSite[] | undefined;
    const retry = (status: number, error: string | undefined, headers?: Record<string, string>) =>
      this.page(response, status, details, asked, { email, error, scopes: scopesView(), sites: sites && sitesView(sites, form.site) }, headers);
    if (!asked.requestedScopes.some((scope) => chosen.has(scope))) return retry(400, 'Choose at least one permission to allow, or deny.');
    let accountId: string;
    if (signedIn) {
      accountId = signedIn;
    } else {
      try {
        accountId = (await this.auth.checkPassword(email, typeof form.password === 'string' ? form.password : '', client)).id;
      } catch (error) {
        if (error instanceof AppException && (error.code === ErrorCode.INVALID_CREDENTIALS || error.code === ErrorCode.RATE_LIMITED)) {
          return retry(error.status, error.message, error.headers);
        }
        throw error;
      }
    }
    const siteScopes = asked.requestedScopes.filter((scope) => SITE_SCOPES.includes(scope) && chosen.has(scope));
    let site: ConsentSite | undefined;
    if (siteScopes.length > 0) {
      sites = await this.sites.listSites(accountId);
      // Only a site of this account counts, whatever the form says.
      site = sites.find((candidate) => candidate.id === form.site);
      if (!site) {
        if (!signedIn) await this.oauth.provider.interactionResult(request, response, { login: { accountId } }, { mergeWithLastSubmission: false });
        if (sites.length === 0) return retry(400, 'Your account has no feedback site yet: untick the site permissions, or create a site first.');
        return retry(signedIn ? 400 : 200, signedIn ? 'Choose the site the app may use.' : undefined);
      }
    }
    const grant = (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ?? new provider.Grant({ accountId, clientId: details.params.client_id as string });
    if (grant.accountId !== accountId) throw new AppException(ErrorCode.FORBIDDEN, 'This sign-in belongs to another account');
    for (const scope of asked.protocolScopes) grant.addOIDCScope(scope);
    // One site per grant and resource: a new choice on this grant replaces the last one.
    grant.rar = grant.rar?.filter((detail) => !isDetailFor(detail, asked.resource));
    if (site) {
      const actions: FeedbackSiteAction[] = siteScopes.includes(FEEDBACK_SCOPES.write) ? ['read', 'write'] : ['read'];
      grant.addRar({ ...feedbackSiteDetail(this.oauth.resourceFor(asked.resource)!, site.id, actions) });
    }
    for (const scope of asked.requestedScopes) {
      // A scope left unticked is recorded as refused, so the app is not asked again for it at once.
      if (chosen.has(scope)) {
        grant.addOIDCScope(scope);
        grant.addResourceScope(asked.resource, scope);
      } else {
        grant.rejectOIDCScope(scope);
        grant.rejectResourceScope(asked.resource, scope);
      }
    }
    const grantId = await grant.save();
    // A URL client id (metadata document) has no stored registration to name it later: the grant keeps the name shown now.
    if (asked.clientClaimedName) await this.records.recordGrantClientName(accountId, grantId, asked.clientClaimedName);
    await this.activity.recordAfter(accountId, 'oauth_app_connected', { client, details: { clientId: details.params.client_id, clientName: asked.clientName, scopes: asked.requestedScopes.filter((scope) => chosen.has(scope)) } });
    await provider.interactionFinished(request, response, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  /** The pending authorization request of this browser, or (having answered with an error page) nothing. */
  private async load(request: Request, response: Response): Promise<{ details: InteractionDetails; asked: Request_ } | undefined> {
    let details: InteractionDetails;
    try {
      details = await this.oauth.provider.interactionDetails(request, response);
    } catch (error) {
      if (error instanceof errors.OIDCProviderError) {
        this.errorPage(response, error.statusCode, error.error, 'the sign-in expired or was started in another browser');
        return undefined;
      }
      throw error;
    }
    if (details.uid !== request.params.uid) {
      this.errorPage(response, 400, 'invalid_request', 'the sign-in link does not match this browser’s sign-in');
      return undefined;
    }
    const params = details.params as Record<string, unknown>;
    const resource = asStrings(params.resource)[0] ?? this.oauth.resources[0].resource;
    const target = this.oauth.resourceFor(resource);
    const scopes = typeof params.scope === 'string' ? params.scope.split(' ') : [];
    const requestedScopes = target ? target.scopes.filter((scope) => scopes.includes(scope)) : [];
    if (requestedScopes.length === 0) {
      this.errorPage(response, 400, 'invalid_scope', 'the app asked for no permission of this service');
      return undefined;
    }
    const client = await this.oauth.provider.Client.find(params.client_id as string);
    return {
      details,
      asked: {
        resource,
        requestedScopes,
        protocolScopes: scopes.filter((scope) => scope === 'openid' || scope === 'offline_access'),
        clientName: client?.clientName ?? (params.client_id as string),
        clientClaimedName: client?.clientName,
        redirectUri: params.redirect_uri as string,
      },
    };
  }

  private page(response: Response, status: number, details: InteractionDetails, asked: Request_, view: Omit<SignInView, 'uid' | 'clientName' | 'redirectTarget'>, headers?: Record<string, string>): void {
    const redirect = URL.parse(asked.redirectUri);
    // A private-use scheme has no origin: the form's answer may go to that scheme.
    const redirectSource = redirect ? (redirect.origin !== 'null' ? redirect.origin : redirect.protocol) : null;
    response.status(status).set({ ...HTML_PAGE_HEADERS, ...headers, 'Content-Security-Policy': signInPageCsp(redirectSource) });
    response.send(renderSignInPage({ ...view, uid: details.uid, clientName: asked.clientName, redirectTarget: asked.redirectUri }));
  }

  private errorPage(response: Response, status: number, error: string, description: string): void {
    response.status(status).set({ ...HTML_PAGE_HEADERS, 'Content-Security-Policy': signInPageCsp(null) });
    response.send(renderOAuthErrorPage(error, description));
  }
}
