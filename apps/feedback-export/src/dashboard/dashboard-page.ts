import { escape } from 'html-escaper';
import { PAGE_CSP, PAGE_HEADERS, renderPage } from '../share/share-page.js';

/**
 * The owner dashboard: a static page whose script signs in against the account service
 * (todo-api's POST /api/v1/auth/login at PUBLIC_BASE_URL: one account system, one JWT) and then
 * calls this service's owner routes. The CSP allows exactly that one other origin to be fetched.
 */
export function dashboardHeaders(authBaseUrl: string): Record<string, string> {
  const authOrigin = new URL(authBaseUrl).origin;
  return { ...PAGE_HEADERS, 'Content-Security-Policy': PAGE_CSP.replace("connect-src 'self'", `connect-src 'self' ${authOrigin}`) };
}

export function renderDashboardPage(authBaseUrl: string): string {
  const body = `<main id="main">
<div class="topbar">
  <h1>Feedback dashboard</h1>
  <div id="account" class="row" hidden><span id="who" class="muted"></span><button type="button" id="sign-out" class="secondary">Sign out</button></div>
</div>
<p id="notice" class="status-line" role="status" aria-live="polite"></p>
<section id="sign-in" class="card" aria-labelledby="sign-in-title" hidden>
  <h2 id="sign-in-title">Sign in</h2>
  <form id="sign-in-form">
    <label for="email">E-mail</label>
    <input id="email" name="email" type="email" autocomplete="username" required>
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required>
    <div class="row"><button type="submit" id="sign-in-button">Sign in</button></div>
    <p id="sign-in-error" class="error" role="alert"></p>
  </form>
  <p class="muted">One account for the todo service and this dashboard.</p>
</section>
<section id="app" hidden>
  <section class="card" aria-labelledby="sites-title">
    <h2 id="sites-title">Sites</h2>
    <div id="sites"><p class="muted">Loading…</p></div>
  </section>
  <section id="site-view" class="card" aria-labelledby="site-title" hidden>
    <h2 id="site-title"></h2>
    <div class="tabs" role="tablist">
      <button type="button" role="tab" id="tab-feedback" aria-selected="true" aria-controls="panel-feedback">Feedback</button>
      <button type="button" role="tab" id="tab-batches" aria-selected="false" aria-controls="panel-batches">Question batches</button>
    </div>
    <div id="panel-feedback" role="tabpanel" aria-labelledby="tab-feedback">
      <div id="feedback-list"></div>
      <div class="row"><button type="button" id="more-feedback" class="secondary" hidden>Load more</button></div>
    </div>
    <div id="panel-batches" role="tabpanel" aria-labelledby="tab-batches" hidden>
      <div id="batch-list"></div>
    </div>
  </section>
</section>
</main>`;
  return renderPage('Feedback dashboard', body, '/assets/dashboard.js', ` data-auth-base="${escape(authBaseUrl.replace(/\/+$/, ''))}"`);
}
