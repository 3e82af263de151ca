import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { applyDecorators, Controller, Get, Header, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public, RawResponse, WithoutDatabase } from '#libs/common';
import { ACCOUNT_CENTRE_HEADERS, ACCOUNT_PAGE_HEADERS, ACCOUNT_PAGE_PATHS, accountPage, type AccountPageName, WEBAUTHN_SCRIPT_PATH } from './account-page-views.js';

/** A real browser script beside this file (the build copies it verbatim). */
const ACCOUNT_SCRIPT = readFileSync(new URL('./public/account.js', import.meta.url), 'utf8');

/**
 * @simplewebauthn/browser's own browser build (UMD: sets window.SimpleWebAuthnBrowser), served from this origin so the
 * pages' CSP (script-src 'self') admits it. Its package exports no path to the bundle: it sits beside the CommonJS entry.
 * `require.resolve` on a `require` of its own name: the form knip reads as a use of the dependency (a call on
 * `createRequire(...)` directly is not, and knip listed the package as unused).
 */
const require = createRequire(import.meta.url);
const WEBAUTHN_SCRIPT = readFileSync(join(dirname(require.resolve('@simplewebauthn/browser')), '..', 'dist', 'bundle', 'index.umd.min.js'), 'utf8');

/** An HTML page of the account: documented like the dashboard, served without the database. */
function AccountPage(operationId: string, summary: string): MethodDecorator {
  return applyDecorators(
    RawResponse(),
    WithoutDatabase(),
    ApiOperation({ operationId, summary, description: 'HTML; its script (/assets/account.js) calls the JSON routes of this API with the JWT it gets at sign-in.' }),
    ApiProduces('text/html'),
    ApiResponse({ status: 200, description: 'HTML page', content: { 'text/html': { schema: { type: 'string' }, example: '<!doctype html><html lang="en"><head><title>Your account</title>…</html>' } } }),
  );
}

/** The account pages (sign-up, sign-in, e-mail confirmation, password reset, the account centre) and their script. */
@ApiTags('Account')
@Public()
@Controller()
export class AccountPagesController {
  @Get(ACCOUNT_PAGE_PATHS.centre)
  @AccountPage('getAccountPage', 'The account centre (HTML): profile, security, sessions, connected apps, API keys, subscription, activity')
  centre(@Res() response: Response): void {
    send(response, 'centre');
  }

  @Get(ACCOUNT_PAGE_PATHS.signIn)
  @AccountPage('getSignInPage', 'Sign in (HTML), with the second-factor step')
  signIn(@Res() response: Response): void {
    send(response, 'signIn');
  }

  @Get(ACCOUNT_PAGE_PATHS.signUp)
  @AccountPage('getSignUpPage', 'Create an account (HTML)')
  signUp(@Res() response: Response): void {
    send(response, 'signUp');
  }

  @Get(ACCOUNT_PAGE_PATHS.verifyEmail)
  @AccountPage('getVerifyEmailPage', 'Confirm the e-mail address (HTML): the page the verification mail links to, with the code in the fragment')
  verifyEmail(@Res() response: Response): void {
    send(response, 'verifyEmail');
  }

  @Get(ACCOUNT_PAGE_PATHS.forgotPassword)
  @AccountPage('getForgotPasswordPage', 'Ask for a password reset code (HTML), then set a new password with it')
  forgotPassword(@Res() response: Response): void {
    send(response, 'forgotPassword');
  }

  @Get(ACCOUNT_PAGE_PATHS.resetPassword)
  @AccountPage('getResetPasswordPage', 'Set a new password with the e-mailed reset code (HTML)')
  resetPassword(@Res() response: Response): void {
    send(response, 'resetPassword');
  }

  @Get('assets/account.js')
  @RawResponse()
  @WithoutDatabase()
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiExcludeEndpoint()
  script(): string {
    return ACCOUNT_SCRIPT;
  }

  /** WebAuthn for the sign-in page and the account centre (passkeys), loaded before account.js. */
  @Get(WEBAUTHN_SCRIPT_PATH.slice(1))
  @RawResponse()
  @WithoutDatabase()
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiExcludeEndpoint()
  webauthn(): string {
    return WEBAUTHN_SCRIPT;
  }
}

function send(response: Response, page: AccountPageName): void {
  response
    .set(page === 'centre' ? ACCOUNT_CENTRE_HEADERS : ACCOUNT_PAGE_HEADERS)
    .status(200)
    .send(accountPage(page));
}
