import { escape } from 'html-escaper';

/** The subject of every "answered" notification: fixed wording, never a caller's text. */
export const ANSWER_MAIL_SUBJECT = 'Your questions were answered';

export interface AnswerMailContent {
  /** This service's host (from FEEDBACK_PUBLIC_BASE_URL): who is writing. */
  serviceHost: string;
  /** Caller-written: the batch title and the site's name (quoted and defanged, never a link). */
  batchTitle: string;
  siteName: string;
  answered: number;
  questions: number;
  dashboardUrl: string;
  unsubscribeUrl: string;
}

/**
 * Caller-written text made safe to show inside a mail: control and format characters (bidi
 * overrides, zero-width joiners) and line breaks become spaces, and whatever a mail client could
 * turn into a link is defanged: `://` -> `[:]//`, a dot between characters -> `[.]`, `@` -> `[at]`.
 * Clients autolink URLs, bare domains (`evil.example`) and addresses in text and HTML parts alike,
 * so escaping alone would still hand the caller a clickable link in our name.
 */
export function defangCallerText(text: string): string {
  return text
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/:\/\//g, '[:]//')
    .replace(/\.(?=\S)/g, '[.]')
    .replace(/@/g, '[at]');
}

/**
 * The "answered" notification: fixed subject; the body says who writes (this service), quotes the
 * caller's text (batch title, site name) as such, defanged and never inside a link, and links only
 * to our own dashboard and unsubscribe page. The answers themselves are not in the mail (they are
 * caller-written too): the owner reads them in the dashboard.
 */
export function renderAnswerMail(content: AnswerMailContent): { subject: string; text: string; html: string } {
  const title = defangCallerText(content.batchTitle);
  const site = defangCallerText(content.siteName);
  const counts = `${content.answered} of ${content.questions} question${content.questions === 1 ? '' : 's'} answered`;
  const text = [
    `This is the feedback service at ${content.serviceHost}.`,
    '',
    'A question batch whose notifications go to this address was answered',
    `(${counts}). Its title and site, as their author wrote them (not checked by us):`,
    '',
    `  Batch title: > ${title}`,
    `  Site:        > ${site}`,
    '',
    `Read the answers in the dashboard: ${content.dashboardUrl}`,
    '',
    'A batch sends this notification once, when it is first submitted.',
    `Not yours, or no more of these from this site? Unsubscribe: ${content.unsubscribeUrl}`,
  ].join('\n');
  const html = `<!doctype html><html lang="en"><body>
<p>This is the feedback service at ${escape(content.serviceHost)}.</p>
<p>A question batch whose notifications go to this address was answered (${escape(counts)}). Its title and site, as their author wrote them (not checked by us):</p>
<blockquote><p>Batch title: <span>${escape(title)}</span></p><p>Site: <span>${escape(site)}</span></p></blockquote>
<p><a href="${escape(content.dashboardUrl)}">Read the answers in the dashboard</a></p>
<p>A batch sends this notification once, when it is first submitted.<br>Not yours, or no more of these from this site? <a href="${escape(content.unsubscribeUrl)}">Unsubscribe</a></p>
</body></html>`;
  return { subject: ANSWER_MAIL_SUBJECT, text, html };
}
