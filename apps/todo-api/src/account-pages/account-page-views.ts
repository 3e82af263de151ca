import { PAGE_CSP, PAGE_HEADERS, PAGE_KIT_SCRIPT, renderPage, renderWebhookPanel, WEBHOOK_PANEL_SCRIPT, type WebhookPanelWords } from '#libs/common';
import { VERIFY_EMAIL_PAGE_PATH } from '#libs/identity';
import { TODO_WEBHOOK_EVENTS } from '../webhooks/todo-webhook-events.js';

/**
 * The account pages (issue 29): static HTML whose one script (public/account.js) calls this service's JSON API with
 * the JWT it gets at sign-in. Same frame, stylesheet and CSP as feedback-export's dashboard (libs/common/src/pages);
 * the account centre also shows the authenticator's QR code, a PNG data URL from the enrolment answer.
 */
export const ACCOUNT_PAGE_PATHS = {
  centre: 'account',
  signIn: 'account/sign-in',
  signUp: 'account/sign-up',
  // The page the verification mail links to (its path is the mail's, in the identity wing).
  verifyEmail: VERIFY_EMAIL_PAGE_PATH.slice(1),
  forgotPassword: 'account/forgot-password',
  resetPassword: 'account/reset-password',
} as const;

export type AccountPageName = keyof typeof ACCOUNT_PAGE_PATHS;

/** @simplewebauthn/browser's browser build, served from this origin: the sign-in page and the account centre use passkeys. */
export const WEBAUTHN_SCRIPT_PATH = '/assets/simplewebauthn-browser.js';

/** The scripts of a page, in order: the page kit, WebAuthn where passkeys are used, the webhook panel on the centre, then account.js. */
function pageScripts(page: AccountPageName): string[] {
  if (page === 'centre') return [PAGE_KIT_SCRIPT, WEBAUTHN_SCRIPT_PATH, WEBHOOK_PANEL_SCRIPT, '/assets/account.js'];
  return page === 'signIn' ? [PAGE_KIT_SCRIPT, WEBAUTHN_SCRIPT_PATH, '/assets/account.js'] : [PAGE_KIT_SCRIPT, '/assets/account.js'];
}

export const ACCOUNT_PAGE_HEADERS: Record<string, string> = PAGE_HEADERS;
export const ACCOUNT_CENTRE_HEADERS: Record<string, string> = { ...PAGE_HEADERS, 'Content-Security-Policy': PAGE_CSP.replace("img-src 'self'", "img-src 'self' data:") };

const LOGO = '<img src="/favicon.svg" alt="" width="28" height="28" class="logo">';

/** The links under every signed-out form: nobody dead-ends at a sign-in form without an account or a password. */
function accountLinks(...which: Array<'sign-in' | 'sign-up' | 'forgot'>): string {
  const links = {
    'sign-in': '<a href="/account/sign-in">Sign in</a>',
    'sign-up': '<a href="/account/sign-up">Create an account</a>',
    forgot: '<a href="/account/forgot-password">Forgot your password?</a>',
  };
  return `<p class="row small-text">${which.map((name) => links[name]).join(' <span class="muted" aria-hidden="true">·</span> ')}</p>`;
}

function signedOutPage(page: AccountPageName, title: string, inner: string): string {
  const body = `<main id="main">
<h1>${LOGO} ${title}</h1>
<p id="notice" class="status-line" role="status" aria-live="polite"></p>
<section class="card narrow">
${inner}
</section>
</main>`;
  return renderPage(title, body, pageScripts(page), { 'data-page': page });
}

const SIGN_IN = signedOutPage(
  'signIn',
  'Sign in',
  `  <form id="sign-in-form">
    <label for="email">E-mail</label>
    <input id="email" name="email" type="email" autocomplete="username" maxlength="254" required>
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" maxlength="1024" required>
    <div class="row"><button type="submit" id="sign-in-button">Sign in</button></div>
    <p id="sign-in-error" class="error" role="alert"></p>
  </form>
  <div id="passkey-sign-in-box" hidden>
    <p class="or muted small-text">or, without a password</p>
    <div class="row"><button type="button" id="passkey-sign-in" class="secondary">Sign in with a passkey</button></div>
    <p id="passkey-sign-in-error" class="error" role="alert"></p>
  </div>
  <form id="factor-form" hidden>
    <p>Your account asks for a second factor.</p>
    <div id="factor-passkey" hidden>
      <div class="row"><button type="button" id="factor-passkey-button">Use a passkey</button></div>
      <p class="or muted small-text">or type a code</p>
    </div>
    <label for="factor-code">Authenticator code or recovery code</label>
    <input id="factor-code" name="code" type="text" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" maxlength="64" required>
    <div class="row"><button type="submit" id="factor-button">Verify</button><button type="button" id="factor-cancel" class="secondary">Back</button></div>
    <p id="factor-error" class="error" role="alert"></p>
  </form>
  ${accountLinks('sign-up', 'forgot')}`,
);

const SIGN_UP = signedOutPage(
  'signUp',
  'Create an account',
  `  <form id="sign-up-form">
    <label for="email">E-mail</label>
    <input id="email" name="email" type="email" autocomplete="email" maxlength="254" required>
    <label for="password">Password <span class="muted">(8 to 128 characters)</span></label>
    <input id="password" name="password" type="password" autocomplete="new-password" minlength="8" maxlength="128" required>
    <label for="password-confirm">Password again</label>
    <input id="password-confirm" name="passwordConfirm" type="password" autocomplete="new-password" minlength="8" maxlength="128" required>
    <div class="row"><button type="submit" id="sign-up-button">Create account</button></div>
    <p id="sign-up-error" class="error" role="alert"></p>
  </form>
  <p class="muted small-text">We e-mail you a link to confirm your address.</p>
  ${accountLinks('sign-in')}`,
);

const VERIFY_EMAIL = signedOutPage(
  'verifyEmail',
  'Confirm your e-mail address',
  `  <p id="verify-state" role="status" aria-live="polite">Confirming…</p>
  <form id="verify-form" hidden>
    <label for="verify-code">Code from the e-mail</label>
    <input id="verify-code" name="token" type="text" autocapitalize="none" spellcheck="false" maxlength="256" required>
    <div class="row"><button type="submit" id="verify-button">Confirm</button></div>
    <p id="verify-error" class="error" role="alert"></p>
  </form>
  <p class="small-text"><a href="/account">Go to your account</a></p>`,
);

/** Step one (the e-mail) and step two (code and new password); the reset page opens on step two. */
function resetPage(page: 'forgotPassword' | 'resetPassword', title: string): string {
  return signedOutPage(
    page,
    title,
    `  <form id="forgot-form"${page === 'resetPassword' ? ' hidden' : ''}>
    <p>We e-mail you a 6-digit code to set a new password.</p>
    <label for="forgot-email">E-mail</label>
    <input id="forgot-email" name="email" type="email" autocomplete="username" maxlength="254" required>
    <div class="row"><button type="submit" id="forgot-button">Send code</button><a href="/account/reset-password">I have a code</a></div>
    <p id="forgot-error" class="error" role="alert"></p>
  </form>
  <form id="reset-form"${page === 'forgotPassword' ? ' hidden' : ''}>
    <label for="reset-email">E-mail</label>
    <input id="reset-email" name="email" type="email" autocomplete="username" maxlength="254" required>
    <label for="reset-code">Code from the e-mail</label>
    <input id="reset-code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
    <label for="reset-password">New password <span class="muted">(8 to 128 characters)</span></label>
    <input id="reset-password" name="password" type="password" autocomplete="new-password" minlength="8" maxlength="128" required>
    <label for="reset-password-confirm">New password again</label>
    <input id="reset-password-confirm" name="passwordConfirm" type="password" autocomplete="new-password" minlength="8" maxlength="128" required>
    <div class="row"><button type="submit" id="reset-button">Set new password</button></div>
    <p id="reset-error" class="error" role="alert"></p>
  </form>
  ${accountLinks('sign-in', 'sign-up')}`,
  );
}

/**
 * "Use a passkey" in a form whose second factor can also be typed (password change, deletion, and a passkey's removal,
 * whose form account.js builds from the #passkey-proof-template copy): shown while the account has a passkey and the
 * browser does WebAuthn.
 */
function passkeyProof(buttonClass: '' | 'danger' | 'danger small'): string {
  return `<div data-passkey-proof hidden><div class="row"><button type="button"${buttonClass ? ` class="${buttonClass}"` : ''}>Use a passkey</button></div><p class="or muted small-text">or type a code</p></div>`;
}

/** The centre's webhook section in this app's words; the event checkboxes are todo-api's catalogue, from its one home. */
const WEBHOOK_PANEL: WebhookPanelWords = {
  introHtml: "Endpoints that receive your todo events, each POSTed signed (Standard Webhooks: the <code>webhook-signature</code> header). An endpoint's signing secret is shown once, when it is created or rotated.",
  eventTypes: Object.keys(TODO_WEBHOOK_EVENTS),
  urlPlaceholder: 'https://example.com/hooks/todos',
  descriptionPlaceholder: 'Todos to the team chat',
};

const CENTRE_BODY = `<main id="main" class="wide">
<div class="topbar">
  <h1>${LOGO} Your account</h1>
  <div class="row"><span id="who" class="muted"></span><button type="button" id="sign-out" class="secondary">Sign out</button></div>
</div>
<nav class="tabs" aria-label="Account sections">
  <a href="#profile">Profile</a> <a href="#security">Security</a> <a href="#sessions">Sessions</a> <a href="#connected-apps">Connected apps</a>
  <a href="#api-keys">API keys</a> <a href="#webhooks">Webhooks</a> <a href="#subscription">Subscription</a> <a href="#activity">Activity</a>
</nav>
<p id="notice" class="status-line" role="status" aria-live="polite"></p>
<section id="profile" class="card" aria-labelledby="profile-title">
  <h2 id="profile-title">Profile</h2>
  <p>E-mail: <strong id="profile-email"></strong> <span id="profile-confirmed" class="badge"></span></p>
  <p class="small-text">Username: <span id="profile-username"></span></p>
  <div id="unconfirmed" hidden>
    <p class="small-text">Confirm your address with the link we e-mailed you: a second factor needs a confirmed address.</p>
    <div class="row"><button type="button" id="resend-verification" class="secondary">Send the link again</button></div>
  </div>
  <h3>Change your e-mail address</h3>
  <p id="email-change-unconfirmed" class="small-text muted" hidden>Confirm your current address first: a change needs a confirmed address.</p>
  <form id="email-change-form" class="inset">
    <div class="fields">
      <div><label for="email-change-new">New e-mail address</label><input id="email-change-new" type="email" autocomplete="email" maxlength="254" required></div>
      <div><label for="email-change-password">Your password</label><input id="email-change-password" type="password" autocomplete="current-password" maxlength="1024" required></div>
    </div>
    <div class="row"><button type="submit" id="email-change">Change e-mail address</button></div>
    <p id="email-change-error" class="error" role="alert"></p>
  </form>
  <p id="email-change-pending" class="status-line" role="status" hidden></p>
  <h3>Delete your account</h3>
  <form id="delete-account-form" class="inset">
    <p class="small-text">Your account and everything it holds go at once and for good; a paid subscription is cancelled.</p>
    <div class="fields">
      <div><label for="delete-password">Your password</label><input id="delete-password" type="password" autocomplete="current-password" maxlength="128" required></div>
      <div><label for="delete-confirm">Type DELETE to confirm</label><input id="delete-confirm" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" pattern="DELETE" maxlength="6" required></div>
    </div>
    <div id="delete-code-field" hidden>
      ${passkeyProof('danger')}
      <label for="delete-code">Authenticator code or recovery code</label><input id="delete-code" type="text" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" maxlength="64">
    </div>
    <div class="row"><button type="submit" id="delete-account" class="danger">Delete account</button></div>
    <p id="delete-account-error" class="error" role="alert"></p>
  </form>
</section>
<section id="security" class="card" aria-labelledby="security-title">
  <h2 id="security-title">Security</h2>
  <h3>Password</h3>
  <form id="password-form" class="inset">
    <label for="current-password">Current password</label>
    <input id="current-password" type="password" autocomplete="current-password" maxlength="1024" required>
    <div class="fields">
      <div><label for="new-password">New password</label><input id="new-password" type="password" autocomplete="new-password" minlength="8" maxlength="128" required></div>
      <div><label for="new-password-confirm">New password again</label><input id="new-password-confirm" type="password" autocomplete="new-password" minlength="8" maxlength="128" required></div>
    </div>
    <div id="password-code-field" hidden>
      ${passkeyProof('')}
      <label for="password-code">Authenticator code or recovery code</label><input id="password-code" type="text" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" maxlength="64">
    </div>
    <p class="muted small-text">Every session is signed out, this one too, and every connected app is disconnected.</p>
    <div class="row"><button type="submit" id="change-password">Change password</button></div>
    <p id="password-error" class="error" role="alert"></p>
  </form>
  <h3>Authenticator app</h3>
  <p id="mfa-state" class="small-text"></p>
  <form id="totp-start-form" class="inset" hidden>
    <label for="totp-start-password">Current password</label>
    <input id="totp-start-password" type="password" autocomplete="current-password" maxlength="1024" required>
    <div class="row"><button type="submit" id="totp-start">Set up an authenticator app</button></div>
    <p id="totp-start-error" class="error" role="alert"></p>
  </form>
  <form id="totp-confirm-form" class="inset" hidden>
    <p>Scan the code with your authenticator app, or type the key by hand, then enter the code it shows.</p>
    <img id="totp-qr" alt="QR code of the authenticator key" width="200" height="200">
    <p class="small-text">Key: <code id="totp-secret" class="secret"></code></p>
    <label for="totp-code">Code from the app</label>
    <input id="totp-code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
    <div class="row"><button type="submit" id="totp-confirm">Turn on</button></div>
    <p id="totp-confirm-error" class="error" role="alert"></p>
  </form>
  <div id="recovery-codes" hidden></div>
  <form id="totp-check-form" class="inset" hidden>
    <p class="small-text">Turning the authenticator off, or replacing the recovery codes, needs your password and a current code.</p>
    <div class="fields">
      <div><label for="check-password">Current password</label><input id="check-password" type="password" autocomplete="current-password" maxlength="1024" required></div>
      <div><label for="check-code">Authenticator code or recovery code</label><input id="check-code" type="text" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" maxlength="64" required></div>
    </div>
    <div class="row"><button type="submit" id="totp-disable" class="danger">Turn off</button><button type="button" id="recovery-regenerate" class="secondary">New recovery codes</button></div>
    <p id="totp-check-error" class="error" role="alert"></p>
  </form>
  <div id="passkeys">
  <h3>Passkeys</h3>
  <p class="muted small-text">A passkey signs you in with your device’s screen lock or a security key, without a password, and answers the second-factor step.</p>
  <div id="passkey-list"><p class="muted">Loading…</p></div>
  <template id="passkey-proof-template">${passkeyProof('danger small')}</template>
  <form id="passkey-form" class="inset">
    <div class="fields">
      <div><label for="passkey-name">Passkey name</label><input id="passkey-name" type="text" maxlength="64" placeholder="Laptop (Touch ID)"></div>
      <div><label for="passkey-password">Current password</label><input id="passkey-password" type="password" autocomplete="current-password" maxlength="1024" required></div>
    </div>
    <div class="row"><button type="submit" id="passkey-add">Add a passkey</button></div>
    <p id="passkey-error" class="error" role="alert"></p>
  </form>
  <form id="passkey-codes-form" class="inset" hidden>
    <p class="small-text">Replacing the recovery codes needs your password and one of your passkeys.</p>
    <label for="passkey-codes-password">Current password</label>
    <input id="passkey-codes-password" type="password" autocomplete="current-password" maxlength="1024" required>
    <div class="row"><button type="submit" id="passkey-codes" class="secondary">New recovery codes</button></div>
    <p id="passkey-codes-error" class="error" role="alert"></p>
  </form>
  <div id="passkey-recovery-codes" hidden></div>
  </div>
</section>
<section id="sessions" class="card" aria-labelledby="sessions-title">
  <h2 id="sessions-title">Sessions</h2>
  <p class="muted small-text">Each sign-in is a session. Revoke one you do not recognise: it is signed out at once.</p>
  <div id="session-list"><p class="muted">Loading…</p></div>
</section>
<section id="connected-apps" class="card" aria-labelledby="apps-title">
  <h2 id="apps-title">Connected apps</h2>
  <p class="muted small-text">Apps (AI agents) you allowed to use your account. Disconnecting one ends its access at once.</p>
  <div id="app-list"><p class="muted">Loading…</p></div>
</section>
<section id="api-keys" class="card" aria-labelledby="keys-title">
  <div class="section-head">
    <h2 id="keys-title">API keys</h2>
  </div>
  <p class="muted small-text">Keys for the todo routes and the MCP endpoint (header <code>X-API-Key</code>). A key's secret is shown once, when it is created or rotated.</p>
  <form id="key-form" class="inset" hidden>
    <div class="fields">
      <div><label for="key-name">Name</label><input id="key-name" type="text" maxlength="100" required placeholder="CI job"></div>
      <div><label for="key-days">Expires after (days, optional)</label><input id="key-days" type="text" inputmode="numeric" pattern="[0-9]{1,4}" maxlength="4"></div>
    </div>
    <div class="row"><button type="submit" id="key-create">Create key</button></div>
    <p id="key-error" class="error" role="alert"></p>
  </form>
  <div id="key-secret"></div>
  <div id="key-list"><p class="muted">Loading…</p></div>
</section>
<section id="webhooks" class="card" aria-labelledby="webhooks-title">
  <h2 id="webhooks-title">Webhooks</h2>
${renderWebhookPanel(WEBHOOK_PANEL)}
</section>
<section id="subscription" class="card" aria-labelledby="subscription-title">
  <h2 id="subscription-title">Subscription</h2>
  <p id="subscription-state"><span class="muted">Loading…</span></p>
  <div class="row" id="subscription-actions"></div>
  <p id="subscription-error" class="error" role="alert"></p>
</section>
<section id="activity" class="card" aria-labelledby="activity-title">
  <h2 id="activity-title">Activity</h2>
  <p class="muted small-text">Sign-ins, password and e-mail changes, second-factor events, sessions, keys, apps and subscription changes, newest first (kept 90 days).</p>
  <table class="feedback activity">
    <thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">From</th></tr></thead>
    <tbody id="activity-list"></tbody>
  </table>
  <div class="row"><button type="button" id="more-activity" class="secondary" hidden>Load more</button></div>
</section>
</main>`;

const PAGES: Record<AccountPageName, string> = {
  centre: renderPage('Your account', CENTRE_BODY, pageScripts('centre'), { 'data-page': 'centre' }),
  signIn: SIGN_IN,
  signUp: SIGN_UP,
  verifyEmail: VERIFY_EMAIL,
  forgotPassword: resetPage('forgotPassword', 'Forgot your password'),
  resetPassword: resetPage('resetPassword', 'Set a new password'),
};

export function accountPage(name: AccountPageName): string {
  return PAGES[name];
}
