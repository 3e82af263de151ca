import { escape } from 'html-escaper';
import { renderPage } from '#libs/common';
import type { SharedBatchDto } from '../dto/share.dto.js';

function formatTime(value: string): string {
  return new Date(value).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

/** The recipient's page (question and intro HTML arrive sanitised). */
export function renderSharePage(batch: SharedBatchDto): string {
  const questions = batch.questions
    .map((q) => {
      const id = `q${q.n}`;
      const saved = q.answer ? `Saved ${formatTime(q.answer.updatedAt)}` : 'Not answered yet';
      return `<section class="question" data-n="${q.n}" aria-labelledby="${id}-title">
  <h2 id="${id}-title"><span aria-hidden="true">${q.n}. </span>${escape(q.title)}</h2>
  <div class="question-body" id="${id}-body">${q.html}</div>
  <label for="answer-${q.n}">Your answer to question ${q.n}</label>
  <textarea id="answer-${q.n}" name="answer-${q.n}" data-n="${q.n}" maxlength="20000" rows="5" aria-describedby="${id}-body ${id}-saved">${escape(q.answer?.text ?? '')}</textarea>
  <div class="row">
    <button type="button" class="secondary save" data-n="${q.n}">Save answer</button>
    <span id="${id}-saved" class="saved" role="status" aria-live="polite"${q.answer ? ` data-updated-at="${escape(q.answer.updatedAt)}"` : ''}>${saved}</span>
  </div>
</section>`;
    })
    .join('\n');
  const submitted = batch.status === 'answered';
  const body = `<main id="main">
<h1>${escape(batch.title)}</h1>
${batch.introHtml ? `<div class="intro card">${batch.introHtml}</div>` : ''}
<p id="form-status" class="status-line${submitted ? ' done' : ''}" role="status" aria-live="polite">${
    submitted ? 'Your answers were submitted. You can still change them: each change is saved and the asker can see it.' : ''
  }</p>
<noscript><p class="status-line error">This page needs JavaScript to save your answers. Please enable it and reload.</p></noscript>
<p class="muted">Answers are saved as you type. Press “Submit answers” when you are done.</p>
<form id="answers" novalidate>
${questions}
<div class="row"><button type="submit" id="submit">${submitted ? 'Submit again' : 'Submit answers'}</button></div>
</form>
</main>`;
  return renderPage(batch.title, body, ['/assets/share.js'], { 'data-status': batch.status });
}

export function renderNotFoundPage(): string {
  return renderPage(
    'Not found',
    `<main id="main"><h1>This link does not work</h1><div class="card"><p>There are no questions at this address. The link may be mistyped, or the questions have been withdrawn.</p><p class="muted">Ask the sender for a new link.</p></div></main>`,
  );
}

/** The unsubscribe confirmation (GET must not unsubscribe: link scanners fetch it); the button posts the one-click form. */
export function renderUnsubscribePage(siteName: string, action: string): string {
  return renderPage(
    'Unsubscribe',
    `<main id="main"><h1>Stop these notifications?</h1><div class="card"><p>This address will get no more “your questions were answered” notifications for question batches of the site “${escape(siteName)}”.</p>
<form method="post" action="${escape(action)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form></div></main>`,
  );
}

export function renderUnsubscribedPage(siteName: string): string {
  return renderPage(
    'Unsubscribed',
    `<main id="main"><h1>Unsubscribed</h1><div class="card"><p>This address will get no more notifications for question batches of the site “${escape(siteName)}”.</p></div></main>`,
  );
}

export function renderUnsubscribeNotFoundPage(): string {
  return renderPage('Not found', `<main id="main"><h1>This link does not work</h1><div class="card"><p>The unsubscribe link is not valid, or its site no longer exists (then it sends nothing more).</p></div></main>`);
}
