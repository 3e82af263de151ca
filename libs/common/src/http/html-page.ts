import { escape } from 'html-escaper';

/**
 * Headers of every server-rendered HTML page (each page adds its own Content-Security-Policy):
 * no-referrer keeps tokens in page URLs (share links, sign-in interactions) out of Referer
 * headers, and pages that show account data are never cached or indexed.
 */
export const HTML_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex, nofollow',
};

export interface HtmlPage {
  title: string;
  /** Trusted markup: the caller escapes text (html-escaper) and sanitises any stored HTML. */
  body: string;
  stylesheet: string;
  icon?: string;
  /** Loaded deferred, in this order; pages never carry inline script (their CSP forbids it). */
  scripts?: readonly string[];
  /** Attribute name → value, escaped here (a page's script reads its settings from them). */
  bodyAttributes?: Record<string, string>;
}

/** The frame of every server-rendered HTML page, in both services. */
export function renderHtmlPage(page: HtmlPage): string {
  const attributes = Object.entries(page.bodyAttributes ?? {})
    .map(([name, value]) => ` ${name}="${escape(value)}"`)
    .join('');
  const head = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${escape(page.title)}</title>`,
    page.icon ? `<link rel="icon" href="${escape(page.icon)}" type="image/svg+xml">` : '',
    `<link rel="stylesheet" href="${escape(page.stylesheet)}">`,
    ...(page.scripts ?? []).map((script) => `<script src="${escape(script)}" defer></script>`),
  ].filter(Boolean);
  return `<!doctype html>
<html lang="en">
<head>
${head.join('\n')}
</head>
<body${attributes}>
${page.body}
</body>
</html>
`;
}
