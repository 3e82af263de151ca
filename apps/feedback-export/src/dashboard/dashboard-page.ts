import { escape } from 'html-escaper';
import { PAGE_CSP, PAGE_HEADERS, PAGE_KIT_SCRIPT, renderPage, renderWebhookPanel, trimTrailingSlashes, WEBHOOK_PANEL_SCRIPT, type WebhookPanelWords } from '#libs/common';
import { FEEDBACK_WEBHOOK_EVENTS } from '../webhooks/feedback-webhook-events.js';

/**
 * The owner dashboard: a static page whose script (public/dashboard.js) signs in against the
 * account service (todo-api's POST /api/v1/auth/login at PUBLIC_BASE_URL: one account system,
 * one JWT) and then calls this service's owner routes. The CSP allows exactly that one other
 * origin to be fetched.
 */
export function dashboardHeaders(authBaseUrl: string): Record<string, string> {
  const authOrigin = new URL(authBaseUrl).origin;
  return { ...PAGE_HEADERS, 'Content-Security-Policy': PAGE_CSP.replace("connect-src 'self'", `connect-src 'self' ${authOrigin}`) };
}

/** The site's webhook tab in this app's words; the event checkboxes are the site webhooks' catalogue, from its one home. */
const WEBHOOK_PANEL: WebhookPanelWords = {
  introHtml: 'Each new feedback, status change and question-batch step is POSTed, signed (Standard Webhooks), to the endpoints below.',
  eventTypes: Object.keys(FEEDBACK_WEBHOOK_EVENTS),
  urlPlaceholder: 'https://example.com/hooks/feedback',
  descriptionPlaceholder: 'Post new bugs to Slack',
};

export function renderDashboardPage(authBaseUrl: string): string {
  // The account pages (sign-up, password reset) are the account service's.
  const accountBase = escape(trimTrailingSlashes(authBaseUrl));
  const body = `<main id="main" class="wide">
<div class="topbar">
  <h1><img src="/favicon.svg" alt="" width="28" height="28" class="logo"> Feedback dashboard</h1>
  <div id="account" class="row" hidden><span id="who" class="muted"></span><button type="button" id="sign-out" class="secondary">Sign out</button></div>
</div>
<p id="notice" class="status-line" role="status" aria-live="polite"></p>
<section id="sign-in" class="card narrow" aria-labelledby="sign-in-title" hidden>
  <h2 id="sign-in-title">Sign in</h2>
  <form id="sign-in-form">
    <label for="email">E-mail</label>
    <input id="email" name="email" type="email" autocomplete="username" required>
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required>
    <div class="row"><button type="submit" id="sign-in-button">Sign in</button></div>
    <p id="sign-in-error" class="error" role="alert"></p>
  </form>
  <form id="factor-form" hidden>
    <p>Your account asks for a second factor.</p>
    <label for="factor-code">Authenticator code or recovery code</label>
    <input id="factor-code" name="code" type="text" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" maxlength="64" required>
    <div class="row"><button type="submit" id="factor-button">Verify</button><button type="button" id="factor-cancel" class="secondary">Back</button></div>
    <p id="factor-error" class="error" role="alert"></p>
  </form>
  <p class="row small-text"><a href="${accountBase}/account/sign-up">Create an account</a> <span class="muted" aria-hidden="true">·</span> <a href="${accountBase}/account/forgot-password">Forgot your password?</a></p>
  <p class="muted">One account for the todo service and this dashboard.</p>
</section>
<section id="app" hidden>
  <section class="card" aria-labelledby="sites-title">
    <div class="section-head">
      <h2 id="sites-title">Sites</h2>
      <button type="button" id="new-site-toggle" class="secondary" aria-expanded="false" aria-controls="new-site-form">New site</button>
    </div>
    <form id="new-site-form" class="inset" hidden>
      <div class="fields">
        <div><label for="new-site-name">Site name</label><input id="new-site-name" type="text" maxlength="100" required placeholder="Marketing site"></div>
        <div><label for="new-site-slug">Slug <span class="muted">(optional, permanent)</span></label><input id="new-site-slug" type="text" maxlength="64" pattern="[a-z0-9]+(-[a-z0-9]+)*" placeholder="marketing-site"></div>
      </div>
      <div class="row"><button type="submit" id="create-site">Create site</button><button type="button" id="cancel-site" class="secondary">Cancel</button></div>
      <p id="new-site-error" class="error" role="alert"></p>
    </form>
    <div id="sites"><p class="muted">Loading…</p></div>
  </section>
  <section id="site-view" class="card" aria-labelledby="site-title" hidden>
    <h2 id="site-title" tabindex="-1"></h2>
    <div class="tabs" role="tablist">
      <button type="button" role="tab" id="tab-feedback" aria-selected="true" aria-controls="panel-feedback">Feedback</button>
      <button type="button" role="tab" id="tab-batches" aria-selected="false" aria-controls="panel-batches">Question batches</button>
      <button type="button" role="tab" id="tab-webhooks" aria-selected="false" aria-controls="panel-webhooks">Webhooks</button>
    </div>
    <div id="panel-feedback" role="tabpanel" aria-labelledby="tab-feedback">
      <form id="feedback-filters" class="filters" role="search">
        <div class="filter-grid">
          <div class="grow"><label for="filter-q">Search</label><input id="filter-q" type="search" maxlength="200" placeholder="Words in the message or page URL"></div>
          <div><label for="filter-type">Type</label>
          <select id="filter-type"><option value="">All types</option><option value="feedback">Feedback</option><option value="feature_request">Idea</option><option value="bug">Bug</option></select></div>
          <div><label for="filter-status">Status</label>
          <select id="filter-status"><option value="">All statuses</option><option value="new">New</option><option value="triaged">Triaged</option><option value="resolved">Resolved</option></select></div>
          <div><label for="filter-from">From</label><input id="filter-from" type="date"></div>
          <div><label for="filter-to">To</label><input id="filter-to" type="date"></div>
          <div><label for="filter-order">Order</label>
          <select id="filter-order"><option value="newest">Newest first</option><option value="oldest">Oldest first</option></select></div>
        </div>
      </form>
      <div class="row bulk" id="bulk-bar">
        <label class="check"><input type="checkbox" id="select-all"> Select all shown</label>
        <span id="selected-count" class="muted" aria-live="polite"></span>
        <button type="button" id="bulk-triaged" class="secondary small" disabled>Mark triaged</button>
        <button type="button" id="bulk-resolved" class="secondary small" disabled>Mark resolved</button>
        <button type="button" id="download-csv" class="secondary small">Download CSV</button>
        <span id="feedback-total" class="muted"></span>
      </div>
      <p class="muted small-text keys" id="keys-help">Keyboard: <kbd>j</kbd>/<kbd>k</kbd> or <kbd>↓</kbd>/<kbd>↑</kbd> move, <kbd>x</kbd> selects, <kbd>t</kbd> triaged, <kbd>r</kbd> resolved, <kbd>/</kbd> search.</p>
      <div id="feedback-list"></div>
      <div class="row"><button type="button" id="more-feedback" class="secondary" hidden>Load more</button></div>
    </div>
    <div id="panel-batches" role="tabpanel" aria-labelledby="tab-batches" hidden>
      <div class="row"><button type="button" id="new-batch">New question batch</button></div>
      <form id="batch-editor" class="inset" aria-labelledby="batch-editor-title" hidden>
        <h3 id="batch-editor-title">New question batch</h3>
        <label for="batch-title">Title</label>
        <input id="batch-title" type="text" maxlength="200" required placeholder="Homepage review">
        <label for="batch-intro">Introduction <span class="muted">(HTML, optional)</span></label>
        <textarea id="batch-intro" rows="3" maxlength="20000" placeholder="&lt;p&gt;Thanks for taking a look.&lt;/p&gt;"></textarea>
        <label for="batch-notify">Notify on answers <span class="muted">(address; default: yours)</span></label>
        <input id="batch-notify" type="email" maxlength="254" autocomplete="off">
        <fieldset id="batch-questions"><legend>Questions</legend></fieldset>
        <div class="row"><button type="button" id="add-question" class="secondary">Add question</button><button type="button" id="preview-batch" class="secondary">Preview</button></div>
        <section id="batch-preview" class="preview" aria-labelledby="batch-preview-title" hidden>
          <h4 id="batch-preview-title">Preview <span class="muted">(as the recipient sees it, after the server’s sanitising)</span></h4>
          <div id="batch-preview-body"></div>
        </section>
        <p id="batch-error" class="error" role="alert"></p>
        <div class="row"><button type="submit" id="save-draft" class="secondary">Save as draft</button><button type="button" id="create-and-send">Create and send</button><button type="button" id="cancel-batch" class="secondary">Cancel</button></div>
      </form>
      <div id="batch-list"></div>
    </div>
    <div id="panel-webhooks" role="tabpanel" aria-labelledby="tab-webhooks" hidden>
${renderWebhookPanel(WEBHOOK_PANEL)}
    </div>
  </section>
  <section class="card" aria-labelledby="portfolio-title">
    <h2 id="portfolio-title">Portfolio token</h2>
    <p class="muted">One read-only token (<code>ok_…</code>) for the feedback of all your sites, for an export job or an agent.</p>
    <p class="small-text" id="portfolio-state"></p>
    <div class="row" id="portfolio-actions"></div>
    <div id="portfolio-secret"></div>
  </section>
</section>
</main>`;
  return renderPage('Feedback dashboard', body, [PAGE_KIT_SCRIPT, WEBHOOK_PANEL_SCRIPT, '/assets/dashboard.js'], { 'data-auth-base': trimTrailingSlashes(authBaseUrl) });
}
