import { escape } from 'html-escaper';
import { renderHtmlPage } from '#libs/common';

/**
 * The sign-in page's CSP: nothing inline, nothing from elsewhere, no script at all; the form may
 * post here only, and its answer may redirect only to the app's own redirect origin.
 */
export function signInPageCsp(redirectOrigin: string | null): string {
  return [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self'",
    `form-action 'self'${redirectOrigin ? ` ${redirectOrigin}` : ''}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The authorization server's error page: no form, no script. */
export const OAUTH_ERROR_PAGE_CSP = "default-src 'none'; style-src 'self'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

export const SIGN_IN_STYLESHEET = `body{font-family:system-ui,sans-serif;margin:0;background:#f5f6f8;color:#1d2330}
main{max-width:26rem;margin:3rem auto;padding:1.5rem 2rem;background:#fff;border-radius:.5rem;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{font-size:1.3rem}label{display:block;margin:.8rem 0 .3rem;font-weight:600}
input[type=email],input[type=password],input[type=text]{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;border:1px solid #8a93a6;border-radius:.3rem}
fieldset{border:1px solid #c7ccd6;border-radius:.3rem;margin:1rem 0;padding:.5rem 1rem}
fieldset label{font-weight:normal;display:flex;gap:.5rem;align-items:center}
.buttons{display:flex;gap:1rem;margin-top:1.2rem}button{font-size:1rem;padding:.5rem 1.2rem;border-radius:.3rem;border:1px solid #1d4ed8;cursor:pointer}
button[value=allow]{background:#1d4ed8;color:#fff}button[value=deny]{background:#fff;color:#1d4ed8}
.error{color:#a40e26;font-weight:600}.host{font-family:ui-monospace,monospace;overflow-wrap:anywhere}
.unverified{background:#fff7e6;border-left:4px solid #f59e0b;padding:.4rem .6rem}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
`;

function layout(title: string, body: string): string {
  return renderHtmlPage({ title, body: `<main>\n${body}\n</main>`, stylesheet: '/oauth/assets/sign-in.css' });
}

export interface SignInView {
  uid: string;
  clientName: string;
  /** The whole redirect URI the answer goes to (a custom-scheme URI has no host to show). */
  redirectTarget: string;
  /** The scopes the app asks for, each ticked unless the user unticked it on a failed submit, with what it lets the app do. */
  scopes: Array<{ scope: string; label: string; checked: boolean }>;
  email?: string;
  error?: string;
  /** The password was right and the account has a second factor: ask for its code instead of the e-mail and password. */
  secondFactor?: boolean;
  /** Once signed in, when a scope that holds for one chosen thing is asked (an app's OAuthConsentChoice): what to choose from. */
  choice?: { field: string; legend: string; prompt: string; multiple: boolean; options: Array<{ id: string; name: string; detail: string; checked: boolean }> };
}

/**
 * Sign-in and consent in one form: the app, where it sends you back, and the scopes it asks, each
 * one a choice; once signed in, the thing or things (an app's consent choice) some scopes hold for.
 */
export function renderSignInPage(view: SignInView): string {
  const scopes = view.scopes
    .map(
      ({ scope, label, checked }, i) => `  <label for="scope-${i}"><input type="checkbox" id="scope-${i}" name="scope" value="${escape(scope)}"${checked ? ' checked' : ''}>
    ${escape(label)} <span class="host">(${escape(scope)})</span></label>`,
    )
    .join('\n');
  const choice = view.choice;
  const credentials = choice
    ? `  <p>You are signed in. ${escape(choice.prompt)}</p>
  <fieldset>
  <legend>${escape(choice.legend)}</legend>
${choice.options
  .map(
    (option, i) => `  <label for="${escape(choice.field)}-${i}"><input type="${choice.multiple ? 'checkbox' : 'radio'}" id="${escape(choice.field)}-${i}" name="${escape(choice.field)}" value="${escape(option.id)}"${option.checked ? ' checked' : ''}>
    ${escape(option.name)} <span class="host">(${escape(option.detail)})</span></label>`,
  )
  .join('\n')}
  </fieldset>`
    : view.secondFactor
      ? `  <p>Your account asks for a second factor.</p>
  <label for="code">Authenticator code or recovery code</label>
  <input type="text" id="code" name="code" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" maxlength="64" required>`
      : `  <label for="email">E-mail</label>
  <input type="email" id="email" name="email" autocomplete="username" required value="${escape(view.email ?? '')}">
  <label for="password">Password</label>
  <input type="password" id="password" name="password" autocomplete="current-password" required>`;
  const error = view.error ? `<p class="error" role="alert" id="form-error">${escape(view.error)}</p>` : '';
  return layout(
    `Connect ${view.clientName}`,
    `<h1>Connect <span id="client-name">${escape(view.clientName)}</span> to your account</h1>
<p class="unverified" id="client-name-unverified">The name “${escape(view.clientName)}” is what the app calls itself: we have not verified it. Only continue if you started this connection.</p>
<p>An app calling itself <strong>${escape(view.clientName)}</strong> asks to use your account. After you allow it you go back to
<span class="host" id="redirect-target">${escape(view.redirectTarget)}</span>.</p>
${error}
<form method="post" action="/oauth/interaction/${escape(view.uid)}"${view.error ? ' aria-describedby="form-error"' : ''}>
${credentials}
  <fieldset>
  <legend>Allow ${escape(view.clientName)} to</legend>
${scopes}
  </fieldset>
  <div class="buttons">
    <button type="submit" name="decision" value="allow">Allow</button>
    <button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
  </div>
</form>
${choice || view.secondFactor ? '' : '<p><a href="/account/sign-up">Create an account</a> · <a href="/account/forgot-password">Forgot your password?</a></p>\n'}<p>You can disconnect the app at any time from your account's <a href="/account#connected-apps">connected apps</a>.</p>`,
  );
}

export function renderOAuthErrorPage(error: string, description?: string): string {
  return layout('Sign-in problem', `<h1>This sign-in cannot go on</h1>
<p role="alert"><strong>${escape(error)}</strong>${description ? `: ${escape(description)}` : ''}</p>
<p>Go back to the app and connect again.</p>`);
}
