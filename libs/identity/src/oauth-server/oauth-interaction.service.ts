import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isDetailFor } from '../oauth-resource/protected-resource.js';
import { AppException, ErrorCode, HTML_PAGE_HEADERS } from '#libs/common';
import { AuthService } from '../sign-in/auth.service.js';
import type { ClientInfo } from '../sessions/sessions.service.js';
import { SecurityActivityService } from '../security-activity/security-activity.service.js';
import { SecondFactorService } from '../second-factor/second-factor.service.js';
import { OAuthProvider } from './oauth-provider.service.js';
import { OAuthRecordsRepository } from './oauth-records.repository.js';
import { oidcErrors } from './oidc-provider-package.js';
import { renderOAuthErrorPage, renderSignInPage, signInPageCsp, SIGN_IN_STYLESHEET, type SignInView } from './oauth-pages.js';
import { OAUTH_RESOURCES, OAuthConsentChoice, type ConsentOption, type OAuthResourceDeclaration } from './oauth-resources.js';

type InteractionDetails = Awaited<ReturnType<OAuthProvider['provider']['interactionDetails']>>;

/** The account this browser signed in as on the first step, while it makes the consent choice. */
function signedInAccount(details: InteractionDetails): string | undefined {
  const accountId = (details.result as { login?: { accountId?: unknown } } | undefined)?.login?.accountId;
  return typeof accountId === 'string' ? accountId : undefined;
}

/** The account whose password was right on the first step while the page asks for its second factor. */
function factorPendingAccount(details: InteractionDetails): string | undefined {
  const accountId = (details.result as { secondFactor?: { accountId?: unknown } } | undefined)?.secondFactor?.accountId;
  return typeof accountId === 'string' ? accountId : undefined;
}

/** The sign-in form as posted; the consent choice (second step, once signed in) in its own field (OAuthConsentChoice.field). */
export interface SignInForm {
  email?: unknown;
  password?: unknown;
  /** The second factor (an account that has one): a TOTP code or a recovery code. */
  code?: unknown;
  scope?: unknown;
  decision?: unknown;
  [choiceField: string]: unknown;
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

const asStrings = (value: unknown): string[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((item): item is string => typeof item === 'string');

/**
 * The authorization server's one page: sign in (the account system's own password check and
 * failed-login limits) and choose which of the asked scopes to allow, or deny. Some scopes
 * may hold for one thing of the account (an app's OAuthConsentChoice, feedback-export's site):
 * once the password is right the page asks which (the
 * sign-in is kept in the interaction meanwhile), and the grant records it as an RFC 9396
 * authorization detail. Then the authorization request carries on (oidc-provider) back to the app.
 */
@Injectable()
export class OAuthInteractionService {
  constructor(
    private readonly oauth: OAuthProvider,
    private readonly auth: AuthService,
    private readonly records: OAuthRecordsRepository,
    private readonly activity: SecurityActivityService,
    private readonly secondFactor: SecondFactorService,
    @Inject(OAUTH_RESOURCES) declarations: OAuthResourceDeclaration[],
    @Optional() private readonly choice?: OAuthConsentChoice,
  ) {
    this.scopeLabels = Object.assign({}, ...declarations.map((declared) => declared.scopeLabels));
  }

  private readonly scopeLabels: Record<string, string>;

  /** The scopes that hold for the one thing chosen on the page. */
  private get choiceScopes(): readonly string[] {
    return this.choice?.scopes ?? [];
  }

  private choiceView(clientName: string, options: ConsentOption[], picked: readonly string[] = []): SignInView['choice'] {
    const choice = this.choice!;
    return {
      field: choice.field,
      legend: choice.legend,
      prompt: choice.prompt(clientName),
      multiple: choice.multiple,
      options: options.map((option) => ({ ...option, checked: picked.includes(option.id) })),
    };
  }

  private scopeView(scope: string, checked: boolean): SignInView['scopes'][number] {
    return { scope, label: this.scopeLabels[scope] ?? scope, checked };
  }

  stylesheet(response: Response): void {
    response.status(200).type('text/css').setHeader('Cache-Control', 'public, max-age=3600');
    response.send(SIGN_IN_STYLESHEET);
  }

  async show(request: Request, response: Response): Promise<void> {
    const found = await this.load(request, response);
    if (!found) return;
    const { details, asked } = found;
    const signedIn = signedInAccount(details);
    const options = signedIn && asked.requestedScopes.some((scope) => this.choiceScopes.includes(scope)) ? await this.choice!.options(signedIn) : undefined;
    this.page(response, 200, details, asked, { scopes: asked.requestedScopes.map((scope) => this.scopeView(scope, true)), choice: options && this.choiceView(asked.clientName, options) });
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
    const scopesView = () => asked.requestedScopes.map((scope) => this.scopeView(scope, chosen.has(scope)));
    let options: ConsentOption[] | undefined;
    const picked = this.choice ? asStrings(form[this.choice.field]) : [];
    let factorStep = !signedIn && factorPendingAccount(details) !== undefined;
    const retry = (status: number, error: string | undefined, headers?: Record<string, string>) =>
      this.page(response, status, details, asked, { email, error, scopes: scopesView(), secondFactor: factorStep, choice: options && this.choiceView(asked.clientName, options, picked) }, headers);
    if (!asked.requestedScopes.some((scope) => chosen.has(scope))) return retry(400, 'Choose at least one permission to allow, or deny.');
    let accountId: string;
    if (signedIn) {
      accountId = signedIn;
    } else {
      const pending = factorPendingAccount(details);
      try {
        if (pending) {
          // Second step: the password was right, now its second factor.
          await this.secondFactor.passForSignIn(pending, typeof form.code === 'string' ? form.code.trim() : '', client);
          accountId = pending;
        } else {
          accountId = (await this.auth.checkPassword(email, typeof form.password === 'string' ? form.password : '', client)).id;
        }
      } catch (error) {
        if (error instanceof AppException && (error.code === ErrorCode.INVALID_CREDENTIALS || error.code === ErrorCode.RATE_LIMITED)) {
          return retry(error.status, error.message, error.headers);
        }
        throw error;
      }
      if (!pending && (await this.secondFactor.isEnabled(accountId))) {
        // Not signed in yet: the interaction remembers whose password was right while the page asks for the code.
        await this.oauth.provider.interactionResult(request, response, { secondFactor: { accountId } }, { mergeWithLastSubmission: false });
        factorStep = true;
        return retry(200, undefined);
      }
    }
    const choiceScopes = asked.requestedScopes.filter((scope) => this.choiceScopes.includes(scope) && chosen.has(scope));
    let chosenOptions: ConsentOption[] = [];
    if (choiceScopes.length > 0) {
      options = await this.choice!.options(accountId);
      // Only options of this account count, whatever the form says: one that is not refuses the whole form.
      chosenOptions = options.filter((candidate) => picked.includes(candidate.id));
      const allOwn = chosenOptions.length === new Set(picked).size;
      if (chosenOptions.length === 0 || !allOwn || (!this.choice!.multiple && chosenOptions.length > 1)) {
        if (!signedIn) await this.oauth.provider.interactionResult(request, response, { login: { accountId } }, { mergeWithLastSubmission: false });
        if (options.length === 0) return retry(400, this.choice!.noOptionsError);
        return retry(signedIn ? 400 : 200, signedIn ? this.choice!.chooseError : undefined);
      }
    }
    const grant = (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ?? new provider.Grant({ accountId, clientId: details.params.client_id as string });
    if (grant.accountId !== accountId) throw new AppException(ErrorCode.FORBIDDEN, 'This sign-in belongs to another account');
    for (const scope of asked.protocolScopes) grant.addOIDCScope(scope);
    // One choice per grant and resource: a new choice on this grant replaces the last one.
    grant.rar = grant.rar?.filter((detail) => !isDetailFor(detail, asked.resource));
    for (const option of chosenOptions) {
      grant.addRar({ ...this.choice!.detail(this.oauth.resourceFor(asked.resource)!, option.id, choiceScopes) } as Parameters<typeof grant.addRar>[0]);
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
      details = await (await this.oauth.ready()).interactionDetails(request, response);
    } catch (error) {
      if (error instanceof oidcErrors().OIDCProviderError) {
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
