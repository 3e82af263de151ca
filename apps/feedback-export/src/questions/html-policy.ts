import sanitizeHtml from 'sanitize-html';

/**
 * What question and intro HTML may contain: text formatting, lists, quotes, code and links
 * (http, https, mailto only). No scripts, styles, event handlers, images, frames, SVG or forms.
 */
const POLICY: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'strong', 'b', 'em', 'i', 'u', 's', 'ul', 'ol', 'li', 'blockquote', 'code', 'pre', 'h2', 'h3', 'h4', 'a', 'hr'],
  allowedAttributes: { a: ['href', 'title', 'rel', 'target'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: {
    a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer nofollow', target: '_blank' }),
  },
};

/**
 * The version of POLICY that stored HTML was sanitised under (question_batches.html_policy_version).
 * Bump it with any change to POLICY: a batch stored under another version is sanitised again on its
 * next read and written back; everything else is served as stored, never sanitised on a view.
 */
export const HTML_POLICY_VERSION = 1;

/** Sanitises owner-supplied HTML with sanitize-html: once, when a batch is stored (or previewed). */
export function sanitizeQuestionHtml(html: string): string {
  return sanitizeHtml(html, POLICY);
}

/** Elements nested deeper than this in one HTML field are refused (400) before anything is sanitised. */
export const MAX_HTML_NESTING = 20;
/** The HTML of one batch (introHtml and every question's html) together: characters and elements (start tags). */
export const MAX_BATCH_HTML_LENGTH = 100_000;
export const MAX_BATCH_HTML_ELEMENTS = 5_000;

export interface HtmlShape {
  /** Start tags, void ones included. */
  elements: number;
  /** The deepest nesting of open elements, counted as the sanitiser's parser builds them; stops counting past the limit. */
  depth: number;
}

const VOID_ELEMENTS = new Set(['area', 'base', 'basefont', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'img', 'input', 'isindex', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
const P = new Set(['p']);
const FORM = new Set(['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea']);
/** An opening tag closes these open elements first (htmlparser2's rules, which sanitize-html parses by). */
const OPEN_IMPLIES_CLOSE = new Map<string, Set<string>>([
  ['tr', new Set(['tr', 'th', 'td'])],
  ['th', new Set(['th'])],
  ['td', new Set(['thead', 'th', 'td'])],
  ['li', new Set(['li'])],
  ['option', new Set(['option'])],
  ['optgroup', new Set(['optgroup', 'option'])],
  ['dd', new Set(['dd', 'dt'])],
  ['dt', new Set(['dd', 'dt'])],
  ['rt', new Set(['rt', 'rp'])],
  ['rp', new Set(['rt', 'rp'])],
  ['tbody', new Set(['thead', 'tbody'])],
  ['tfoot', new Set(['thead', 'tbody'])],
  ...['select', 'input', 'output', 'button', 'datalist', 'textarea'].map((name) => [name, FORM] as [string, Set<string>]),
  ...['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl', 'fieldset', 'figcaption', 'figure']
    .concat(['footer', 'form', 'header', 'hr', 'main', 'nav', 'ol', 'pre', 'section', 'table', 'ul'])
    .map((name) => [name, P] as [string, Set<string>]),
]);

const isAsciiLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
/** Whitespace, '/' or '>': where a tag name ends. */
const endsTagName = (code: number) => code === 32 || code === 9 || code === 10 || code === 12 || code === 13 || code === 47 || code === 62;

/**
 * Counts the elements of an HTML fragment and how deep they nest, in one linear pass (no pattern,
 * no tree), so a request can be refused before the sanitiser (whose parser slows down with depth)
 * sees it. Over-counts rather than under-counts where it simplifies the parser's rules (raw-text
 * elements, SVG self-closing tags). Stops measuring depth once it passes `depthLimit`.
 */
export function measureHtml(html: string, depthLimit = MAX_HTML_NESTING): HtmlShape {
  const stack: string[] = [];
  let elements = 0;
  let depth = 0;
  let i = html.indexOf('<');
  while (i !== -1 && i < html.length - 1) {
    const next = html.charCodeAt(i + 1);
    if (isAsciiLetter(next)) {
      let end = i + 2;
      while (end < html.length && !endsTagName(html.charCodeAt(end))) end++;
      const name = html.slice(i + 1, end).toLowerCase();
      const close = tagEnd(html, end);
      elements++;
      const implied = OPEN_IMPLIES_CLOSE.get(name);
      if (implied) while (stack.length > 0 && implied.has(stack[stack.length - 1])) stack.pop();
      if (!VOID_ELEMENTS.has(name) && depth <= depthLimit) {
        stack.push(name);
        depth = Math.max(depth, stack.length);
      }
      i = close === -1 ? -1 : html.indexOf('<', close + 1);
    } else if (next === 47 /* / */ && isAsciiLetter(html.charCodeAt(i + 2))) {
      let end = i + 3;
      while (end < html.length && !endsTagName(html.charCodeAt(end))) end++;
      const name = html.slice(i + 2, end).toLowerCase();
      const at = stack.lastIndexOf(name);
      if (at !== -1) stack.length = at;
      const close = html.indexOf('>', end);
      i = close === -1 ? -1 : html.indexOf('<', close + 1);
    } else if (html.startsWith('<!--', i)) {
      const close = html.indexOf('-->', i + 4);
      i = close === -1 ? -1 : html.indexOf('<', close + 3);
    } else if (next === 33 /* ! */ || next === 63 /* ? */) {
      const close = html.indexOf('>', i + 2);
      i = close === -1 ? -1 : html.indexOf('<', close + 1);
    } else {
      i = html.indexOf('<', i + 1);
    }
  }
  return { elements, depth };
}

/** The '>' ending a start tag whose name ends at `from`, skipping quoted attribute values; -1 when it never ends. */
function tagEnd(html: string, from: number): number {
  let i = from;
  while (i < html.length) {
    const code = html.charCodeAt(i);
    if (code === 62 /* > */) return i;
    if (code === 61 /* = */) {
      let value = i + 1;
      while (value < html.length && (html.charCodeAt(value) === 32 || html.charCodeAt(value) === 9 || html.charCodeAt(value) === 10 || html.charCodeAt(value) === 13 || html.charCodeAt(value) === 12)) value++;
      const quote = html.charCodeAt(value);
      if (quote === 34 /* " */ || quote === 39 /* ' */) {
        const closing = html.indexOf(quote === 34 ? '"' : "'", value + 1);
        if (closing === -1) return -1;
        i = closing + 1;
        continue;
      }
      i = value;
      continue;
    }
    i++;
  }
  return -1;
}

export interface HtmlField {
  /** The request's path to it, as validation errors name fields: `introHtml`, `questions.3.html`. */
  field: string;
  html: string;
}

/**
 * What a batch's HTML breaks of the limits that bound the sanitiser's work per request: each field's
 * nesting, and the batch's total characters and elements. Linear in the input; empty when within.
 */
export function htmlLimitViolations(fields: HtmlField[]): Array<{ field: string; messages: string[] }> {
  const violations: Array<{ field: string; messages: string[] }> = [];
  let length = 0;
  let elements = 0;
  for (const { field, html } of fields) {
    const shape = measureHtml(html);
    length += html.length;
    elements += shape.elements;
    if (shape.depth > MAX_HTML_NESTING) violations.push({ field, messages: [`${field} nests elements deeper than ${MAX_HTML_NESTING} levels`] });
  }
  const batch = [
    ...(length > MAX_BATCH_HTML_LENGTH ? [`The batch's HTML (introHtml and every html together) is ${length.toLocaleString('en-US')} characters; at most ${MAX_BATCH_HTML_LENGTH.toLocaleString('en-US')} are allowed`] : []),
    ...(elements > MAX_BATCH_HTML_ELEMENTS ? [`The batch's HTML (introHtml and every html together) has ${elements.toLocaleString('en-US')} elements; at most ${MAX_BATCH_HTML_ELEMENTS.toLocaleString('en-US')} are allowed`] : []),
  ];
  if (batch.length > 0) violations.push({ field: 'questions', messages: batch });
  return violations;
}
