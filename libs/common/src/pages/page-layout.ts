import { HTML_PAGE_HEADERS, renderHtmlPage } from '../http/html-page.js';

/**
 * The frame of every HTML page both apps serve (feedback-export's share page and dashboard, todo-api's account pages). Text is
 * escaped with html-escaper; question and intro HTML arrive already sanitised by sanitize-html.
 * Pages send a strict CSP (no inline script or style, nothing from elsewhere), so even a
 * sanitiser miss could not run script.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every HTML page here, with this app's CSP. */
export const PAGE_HEADERS: Record<string, string> = { ...HTML_PAGE_HEADERS, 'Content-Security-Policy': PAGE_CSP };

/** The script the signed-in pages share (window.PageKit: DOM helpers, the API envelope, the refreshing session); list it before the page's own. */
export const PAGE_KIT_SCRIPT = '/assets/page-kit.js';

export function renderPage(title: string, body: string, scripts: readonly string[] = [], bodyAttributes?: Record<string, string>): string {
  return renderHtmlPage({ title, body, stylesheet: '/assets/app.css', icon: '/favicon.svg', scripts, bodyAttributes });
}
