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

/** Sanitises owner-supplied HTML with sanitize-html; applied when stored and again when rendered. */
export function sanitizeQuestionHtml(html: string): string {
  return sanitizeHtml(html, POLICY);
}
