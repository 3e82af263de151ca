import { escape } from 'html-escaper';

/**
 * The frame of every HTML page this app serves (the share page, the dashboard). Text is
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

/** Headers of every HTML page here; no-referrer keeps the share token out of Referer headers on outgoing links. */
export const PAGE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': PAGE_CSP,
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex, nofollow',
};

export function renderPage(title: string, body: string, script?: string, bodyAttributes = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escape(title)}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/app.css">
${script ? `<script src="${script}" defer></script>` : ''}
</head>
<body${bodyAttributes}>
${body}
</body>
</html>
`;
}
