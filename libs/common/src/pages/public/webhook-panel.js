/*
 * The webhook panel of both signed-in pages: the dashboard's site panel and the account centre's (served as
 * /assets/webhook-panel.js, listed with WEBHOOK_PANEL_SCRIPT after page-kit.js and before the page's own script; plain
 * browser JavaScript, no build step). An owner's endpoints: the list, a new one with its signing secret shown once, a
 * test event, the deliveries (followed while pending, replay), enable/disable, a new secret, delete. Its markup is
 * renderWebhookPanel's (webhook-panel.ts), which also holds the app's event catalogue as the editor's checkboxes. It
 * sets window.WebhookPanel and nothing else.
 */
(function () {
  'use strict';
  const { $, el, clear, when, notice, describe, confirmButton, copyButton } = window.PageKit;
  /** After a test event or a replay, the deliveries are read again this often while one is pending, this many times. */
  const DELIVERY_POLL_MS = 1500;
  const DELIVERY_POLL_ROUNDS = 20;

  /** A signing secret shown once, with its copy button. */
  function secretBox(text, secret) {
    return el('div', { className: 'secret-box', role: 'status' }, [
      el('p', { text }),
      el('div', { className: 'copy-row' }, [el('code', { className: 'secret', 'data-secret': 'webhook', text: secret }), copyButton(secret, 'webhook')]),
    ]);
  }

  /** Enabled, failing (its streak of failed attempts) or disabled (and why). */
  function webhookState(hook) {
    if (!hook.enabled) return { kind: 'disabled', text: hook.disabledReason ? 'Disabled: ' + hook.disabledReason : 'Disabled' };
    if (hook.failureStreak > 0) return { kind: 'failing', text: 'Failing: ' + hook.failureStreak + (hook.failureStreak === 1 ? ' failed attempt' : ' failed attempts in a row') };
    return { kind: 'enabled', text: 'Enabled' };
  }
  function stateBadge(hook) {
    const state = webhookState(hook);
    return el('span', { className: 'badge hook-' + state.kind, 'data-webhook-state': state.kind, text: state.text });
  }
  function webhookSummary(hook) {
    const events = hook.eventTypes.length ? hook.eventTypes.join(', ') : 'all events';
    return [hook.description, events, 'created ' + when(hook.createdAt)].filter(Boolean).join(' · ') + (hook.previousSecretExpiresAt ? ' · previous secret signs too until ' + when(hook.previousSecretExpiresAt) : '');
  }

  /**
   * Wires the panel's markup. `api(method, path, body)`: the page's signed-in call (PageKit.signedInSession's api).
   * `base()`: the route of the endpoints shown now (null while there are none to show). `refusals`: error codes the
   * list may be refused with, each with the words shown in its place (and no "New endpoint"). Answers `load` (reads
   * the list again; a failure is shown on the status line) and `reset` (editor closed, list and secret emptied).
   */
  function mount(options) {
    const api = options.api;
    const refusals = options.refusals || {};
    /** The app's event catalogue: the editor's checkboxes (rendered by the server), also the test-event choices. */
    const events = Array.from(document.querySelectorAll('#webhook-event-types [data-event-type]')).map((box) => box.value);

    function openEditor() {
      $('webhook-editor').reset();
      $('webhook-error').textContent = '';
      $('webhook-editor').hidden = false;
      $('new-webhook').hidden = true;
      $('webhook-url').focus();
    }
    function closeEditor() {
      $('webhook-editor').hidden = true;
      $('new-webhook').hidden = false;
    }
    $('new-webhook').addEventListener('click', openEditor);
    $('cancel-webhook').addEventListener('click', closeEditor);

    let loads = 0; // only the latest answer paints the list
    async function load() {
      const base = options.base();
      const round = ++loads;
      if (!base) return;
      let data;
      try {
        data = await api('GET', base);
      } catch (error) {
        if (round !== loads) return;
        if (!Object.hasOwn(refusals, error.code)) return notice('Could not load the webhook endpoints: ' + describe(error), true);
        $('new-webhook').hidden = true;
        clear($('webhook-list')).appendChild(el('p', { className: 'muted', 'data-empty': 'webhooks', text: refusals[error.code] }));
        return;
      }
      if (round !== loads || base !== options.base()) return;
      if ($('webhook-editor').hidden) $('new-webhook').hidden = false;
      const box = clear($('webhook-list'));
      if (data.webhooks.length === 0) box.appendChild(el('p', { className: 'muted', 'data-empty': 'webhooks', text: 'No webhook endpoints yet. “New endpoint” registers a URL; send it a test event to see a signed delivery arrive.' }));
      for (const hook of data.webhooks) box.appendChild(webhookCard(base, hook));
    }

    function reset() {
      loads += 1;
      closeEditor();
      clear($('webhook-secret'));
      clear($('webhook-list'));
    }

    $('webhook-editor').addEventListener('submit', async (event) => {
      event.preventDefault();
      const body = { url: $('webhook-url').value.trim() };
      const description = $('webhook-description').value.trim();
      if (description) body.description = description;
      const types = Array.from(document.querySelectorAll('#webhook-event-types input:checked')).map((box) => box.value);
      if (types.length) body.eventTypes = types;
      $('webhook-error').textContent = '';
      $('create-webhook').disabled = true;
      try {
        const data = await api('POST', options.base(), body);
        closeEditor();
        clear($('webhook-secret')).appendChild(secretBox('Signing secret of ' + data.webhook.url + '. It is shown only this once: copy it now. Verify each delivery with it (Standard Webhooks: the webhook-signature header).', data.secret));
        notice('Endpoint created. Send it a test event to see a delivery.');
        await load();
      } catch (error) {
        $('webhook-error').textContent = describe(error);
      } finally { $('create-webhook').disabled = false; }
    });

    /** One endpoint: its state, a test event, its deliveries (replay); enable/disable, rotate and delete in its menu. */
    function webhookCard(base, hook) {
      const path = base + '/' + encodeURIComponent(hook.id);
      const output = el('div', { className: 'secret-slot' });
      const deliveries = el('div', { className: 'deliveries', 'data-deliveries': hook.id });
      const summary = el('p', { className: 'muted small-text', text: webhookSummary(hook) });
      const typeChoice = el('select', { className: 'test-type', 'aria-label': 'Event type of the test event' }, events.map((type) => el('option', { value: type, text: type })));
      const toggle = el('button', { type: 'button', className: 'secondary', 'aria-expanded': 'false', 'data-show-deliveries': hook.id, text: 'Show deliveries' });
      let following = 0;

      const repaint = (fresh) => {
        hook = fresh;
        card.querySelector('[data-webhook-state]').replaceWith(stateBadge(hook));
        summary.textContent = webhookSummary(hook);
      };
      async function showDeliveries() {
        const data = await api('GET', path + '/deliveries');
        if (!card.isConnected) return data.deliveries;
        clear(deliveries).appendChild(deliveryTable(data.deliveries));
        toggle.setAttribute('aria-expanded', 'true');
        toggle.textContent = 'Hide deliveries';
        return data.deliveries;
      }
      /** Reads the deliveries again while one is pending (the queue sends within a second or two), then the endpoint's state. */
      async function follow() {
        const round = ++following;
        for (let n = 0; n < DELIVERY_POLL_ROUNDS; n++) {
          if (round !== following || !card.isConnected) return;
          let list;
          try { list = await showDeliveries(); } catch (error) { notice('Could not load the deliveries: ' + describe(error), true); return; }
          if (!list.some((d) => d.status === 'pending')) break;
          await new Promise((resolve) => setTimeout(resolve, DELIVERY_POLL_MS));
        }
        try { repaint((await api('GET', path)).webhook); } catch (_) { /* the card stays as it was */ }
      }
      function deliveryTable(list) {
        if (list.length === 0) return el('p', { className: 'muted small-text', text: 'No deliveries yet (they are kept 30 days).' });
        return el('table', { className: 'deliveries' }, [
          el('thead', {}, [el('tr', {}, ['Event', 'Status', 'Response', 'Attempts', 'Created', ''].map((h) => el('th', { scope: 'col' }, h ? [h] : [el('span', { className: 'visually-hidden', text: 'Replay' })])))]),
          el('tbody', {}, list.map((d) => el('tr', { 'data-delivery': d.id, 'data-event-id': d.eventId }, [
            el('td', { 'data-label': 'Event' }, [el('div', {}, [el('code', { text: d.eventType }), el('div', { className: 'muted event-id', text: d.eventId })])]),
            el('td', { 'data-label': 'Status' }, [el('span', { className: 'badge delivery-' + d.status, 'data-delivery-status': d.status, text: d.status })]),
            el('td', { 'data-label': 'Response', 'data-response-code': d.lastResponseCode == null ? '' : String(d.lastResponseCode), title: d.lastError || null, text: d.lastResponseCode == null ? (d.lastError || '—') : String(d.lastResponseCode) }),
            el('td', { 'data-label': 'Attempts', text: String(d.attempts) }),
            el('td', { 'data-label': 'Created', text: when(d.createdAt) }),
            el('td', { className: 'replay' }, [el('button', { type: 'button', className: 'secondary small', 'data-replay': d.id, disabled: d.status === 'pending', 'aria-label': 'Replay ' + d.eventType + ' ' + d.eventId, text: 'Replay', onclick: async (event) => {
              const button = event.currentTarget;
              button.disabled = true;
              try {
                await api('POST', base + '/deliveries/' + encodeURIComponent(d.id) + '/replay');
                notice('Delivery of ' + d.eventType + ' queued again (same event id, new signature).');
                follow();
              } catch (error) { button.disabled = false; notice('Could not replay the delivery: ' + describe(error), true); }
            } })]),
          ]))),
        ]);
      }

      toggle.addEventListener('click', async () => {
        if (toggle.getAttribute('aria-expanded') === 'true') {
          following += 1;
          clear(deliveries);
          toggle.setAttribute('aria-expanded', 'false');
          toggle.textContent = 'Show deliveries';
          return;
        }
        try { await showDeliveries(); } catch (error) { notice('Could not load the deliveries: ' + describe(error), true); }
      });
      const testButton = el('button', { type: 'button', 'data-send-test': hook.id, text: 'Send test event', onclick: async (event) => {
        const button = event.currentTarget;
        button.disabled = true;
        try {
          await api('POST', path + '/test', { eventType: typeChoice.value });
          notice('Test ' + typeChoice.value + ' event queued: its delivery shows below.');
          follow();
        } catch (error) { notice('Could not send the test event: ' + describe(error), true); } finally { button.disabled = false; }
      } });
      const enableButton = el('button', { type: 'button', className: 'secondary', 'data-toggle-webhook': hook.id, text: hook.enabled ? 'Disable' : 'Enable', onclick: async () => {
        menu.open = false;
        try {
          const data = await api('PATCH', path, { enabled: !hook.enabled });
          notice(data.webhook.enabled ? 'Endpoint enabled.' : 'Endpoint disabled: nothing is sent to it until it is enabled again.');
          card.replaceWith(webhookCard(base, data.webhook));
        } catch (error) { notice('Could not change the endpoint: ' + describe(error), true); }
      } });
      const menu = el('details', { className: 'menu' }, [
        el('summary', { 'data-webhook-menu': hook.id, 'aria-label': 'More actions for ' + hook.url, text: 'More' }),
        el('div', { className: 'menu-body' }, [
          enableButton,
          confirmButton('Rotate secret', 'Confirm: new signing secret', { 'data-rotate-webhook': hook.id }, async () => {
            const data = await api('POST', path + '/rotate-secret');
            menu.open = false;
            clear(output).appendChild(secretBox('New signing secret of ' + data.webhook.url + '. It is shown only this once: copy it now. For 24 hours each delivery is signed with both the new and the previous secret.', data.secret));
            repaint(data.webhook);
          }),
          el('hr'),
          confirmButton('Delete', 'Confirm: delete this endpoint and its deliveries', { 'data-delete-webhook': hook.id }, async () => {
            await api('DELETE', path);
            notice('Endpoint ' + hook.url + ' deleted.');
            await load();
          }),
        ]),
      ]);
      const card = el('article', { className: 'hook', 'data-webhook': hook.id }, [
        el('div', { className: 'site-head' }, [el('code', { className: 'hook-url', text: hook.url }), stateBadge(hook)]),
        summary,
        el('div', { className: 'row actions' }, [typeChoice, testButton, toggle, menu]),
        output,
        deliveries,
      ]);
      return card;
    }

    return { load, reset };
  }

  window.WebhookPanel = { mount };
})();
