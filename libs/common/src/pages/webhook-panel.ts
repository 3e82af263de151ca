import { escape } from 'html-escaper';

/** The webhook panel's script (public/webhook-panel.js, window.WebhookPanel): list it after PAGE_KIT_SCRIPT, before the page's own. */
export const WEBHOOK_PANEL_SCRIPT = '/assets/webhook-panel.js';

/** What differs between the apps' webhook panels: their words and their event catalogue. */
export interface WebhookPanelWords {
  /** The sentence over the panel: trusted markup, the app's own text (it may hold a `<code>`). */
  introHtml: string;
  /** The app's event catalogue: a checkbox each in the editor (the script offers the same as test events). */
  eventTypes: readonly string[];
  urlPlaceholder: string;
  descriptionPlaceholder: string;
}

/**
 * The inside of a webhook panel (the dashboard's site tab, the account centre's section): its "New endpoint" button
 * (shown by the script once the list is read), the editor, the slot of the secret shown once, and the list. The
 * script (WEBHOOK_PANEL_SCRIPT) finds everything by these ids.
 */
export function renderWebhookPanel(words: WebhookPanelWords): string {
  const checkboxes = words.eventTypes
    .map((type) => `<label class="check"><input type="checkbox" value="${escape(type)}" data-event-type="${escape(type)}"><code>${escape(type)}</code></label>`)
    .join('');
  return `<p class="muted small-text">${words.introHtml}</p>
<div class="row"><button type="button" id="new-webhook" hidden>New endpoint</button></div>
<form id="webhook-editor" class="inset" aria-labelledby="webhook-editor-title" hidden>
  <h3 id="webhook-editor-title">New webhook endpoint</h3>
  <label for="webhook-url">URL</label>
  <input id="webhook-url" type="url" maxlength="2000" required placeholder="${escape(words.urlPlaceholder)}" autocomplete="off" spellcheck="false">
  <label for="webhook-description">Description <span class="muted">(optional)</span></label>
  <input id="webhook-description" type="text" maxlength="200" placeholder="${escape(words.descriptionPlaceholder)}">
  <fieldset id="webhook-event-types"><legend>Events <span class="muted">(none ticked: all of them)</span></legend>${checkboxes}</fieldset>
  <p id="webhook-error" class="error" role="alert"></p>
  <div class="row"><button type="submit" id="create-webhook">Create endpoint</button><button type="button" id="cancel-webhook" class="secondary">Cancel</button></div>
</form>
<div id="webhook-secret"></div>
<div id="webhook-list"><p class="muted">Loading…</p></div>`;
}
