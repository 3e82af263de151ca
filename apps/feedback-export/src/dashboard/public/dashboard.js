/*
 * The owner dashboard (served as /assets/dashboard.js; plain browser JavaScript, no build step).
 * Everything is built with DOM calls and textContent; the only HTML inserted is question and
 * intro HTML that the server has sanitised (stored batches, or the preview route), and the
 * page's CSP forbids inline script besides.
 */
(function () {
  'use strict';
  const AUTH_BASE = document.body.getAttribute('data-auth-base');
  const STORE = 'feedback-dashboard-session';
  let currentSite = null;
  let feedbackOffset = 0;
  let feedbackItems = [];
  let selected = new Set();
  let focusIndex = -1;
  let feedbackLoad = 0; // each (re)load's number: an answer to an older one is dropped
  // The same words as the widget's chips.
  const TYPE_LABELS = { feedback: 'Feedback', feature_request: 'Idea', bug: 'Bug' };
  const FILTERS = ['q', 'type', 'status', 'from', 'to', 'order'];

  const { $, el, clear, when, notice, describe, request, confirmButton, copyButton } = window.PageKit;
  // The owner's session; an expired access token is refreshed at the account service once, then the owner signs in again.
  const auth = window.PageKit.signedInSession(STORE, AUTH_BASE + '/api/v1/auth/refresh', (message) => signOut(message));
  const api = auth.api;
  // The open site's webhook endpoints: the panel is libs/common's (window.WebhookPanel), on the site's routes.
  const webhooks = window.WebhookPanel.mount({ api, base: () => currentSite && '/api/v1/sites/' + currentSite.id + '/webhooks' });

  /** A secret shown once, with its copy button. */
  function secretBox(label, value, kind) {
    return el('div', { className: 'secret-box', role: 'status' }, [
      el('p', { text: label }),
      el('div', { className: 'copy-row' }, [el('code', { className: 'secret', 'data-secret': kind, text: value }), copyButton(value, kind)]),
    ]);
  }


  // ---- sign-in ----
  function showSignedIn() {
    $('sign-in').hidden = true;
    $('app').hidden = false;
    $('account').hidden = false;
    $('who').textContent = 'Signed in as ' + (auth.get().email || 'owner');
    renderPortfolio();
    loadSites();
  }

  function signOut(message) {
    // A signed-out page keeps a shared link's ?site=…&filters for after the sign-in; signing out forgets them.
    const ending = auth.get();
    if (ending) { request(AUTH_BASE + '/api/v1/auth/logout', 'POST', {}, ending.token).catch(() => {}); window.history.replaceState(null, '', location.pathname); }
    auth.save(null);
    currentSite = null;
    $('app').hidden = true;
    $('account').hidden = true;
    $('site-view').hidden = true;
    $('sign-in').hidden = false;
    showPasswordStep('');
    notice(message || '');
    $('email').focus();
  }

  /** The sign-in waiting for its second factor (login answered MFA_REQUIRED): its challenge token and e-mail. */
  let pendingFactor = null;

  function showPasswordStep(message) {
    pendingFactor = null;
    $('factor-form').reset();
    $('factor-form').hidden = true;
    $('sign-in-form').hidden = false;
    $('sign-in-error').textContent = message || '';
  }

  function signedInWith(data, email) {
    auth.save({ token: data.token, refreshToken: data.refreshToken, email: (data.user && data.user.email) || email });
    notice('');
    showSignedIn();
  }

  $('sign-in-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = $('sign-in-button');
    button.disabled = true;
    $('sign-in-error').textContent = '';
    const email = $('email').value.trim();
    try {
      const data = await request(AUTH_BASE + '/api/v1/auth/login', 'POST', { email, password: $('password').value });
      $('password').value = '';
      signedInWith(data, email);
    } catch (error) {
      if (error.code === 'MFA_REQUIRED' && error.details && typeof error.details.challengeToken === 'string') {
        $('password').value = '';
        pendingFactor = { challengeToken: error.details.challengeToken, email };
        $('sign-in-form').hidden = true;
        $('factor-error').textContent = '';
        $('factor-form').hidden = false;
        $('factor-code').focus();
        return;
      }
      $('sign-in-error').textContent = error.code === 'INVALID_CREDENTIALS' ? 'Wrong e-mail or password.' : describe(error);
    } finally {
      button.disabled = false;
    }
  });
  $('factor-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!pendingFactor) return showPasswordStep('');
    const button = $('factor-button');
    button.disabled = true;
    $('factor-error').textContent = '';
    const typed = $('factor-code').value.trim();
    const body = /^[0-9]{6}$/.test(typed) ? { challengeToken: pendingFactor.challengeToken, code: typed } : { challengeToken: pendingFactor.challengeToken, recoveryCode: typed };
    try {
      const data = await request(AUTH_BASE + '/api/v1/auth/mfa/verify', 'POST', body);
      const email = pendingFactor.email;
      showPasswordStep('');
      signedInWith(data, email);
    } catch (error) {
      if (error.code === 'INVALID_TOKEN') return showPasswordStep('The sign-in expired: sign in again.');
      $('factor-error').textContent = error.code === 'INVALID_CREDENTIALS' ? 'Wrong or already used code.' : describe(error);
    } finally {
      button.disabled = false;
    }
  });
  $('factor-cancel').addEventListener('click', () => showPasswordStep(''));
  $('sign-out').addEventListener('click', () => signOut('Signed out.'));

  // ---- sites ----
  async function loadSites() {
    try {
      const [data, counts] = await Promise.all([api('GET', '/api/v1/sites'), api('GET', '/api/v1/feedback/new-counts')]);
      const newCount = new Map(counts.sites.map((c) => [c.siteId, c.count]));
      const box = clear($('sites'));
      if (data.sites.length === 0) box.appendChild(el('p', { className: 'muted', 'data-empty': 'sites', text: 'No sites yet. Create one with “New site”: you get the widget snippet and its tokens here.' }));
      for (const site of data.sites) box.appendChild(siteCard(site, newCount.get(site.id) || 0));
      // A shared link (?site=…&q=…) opens that site with its filters.
      const wanted = new URLSearchParams(location.search).get('site');
      const site = wanted && !currentSite && data.sites.find((s) => s.id === wanted);
      if (site) openSite(site, true);
    } catch (error) { notice('Could not load your sites: ' + describe(error), true); }
  }

  function toggleNewSite(open) {
    $('new-site-form').hidden = !open;
    $('new-site-toggle').setAttribute('aria-expanded', String(open));
    $('new-site-error').textContent = '';
    if (open) $('new-site-name').focus();
  }
  $('new-site-toggle').addEventListener('click', () => toggleNewSite($('new-site-form').hidden));
  $('cancel-site').addEventListener('click', () => toggleNewSite(false));
  $('new-site-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = { name: $('new-site-name').value.trim() };
    const slug = $('new-site-slug').value.trim();
    if (slug) body.slug = slug;
    $('create-site').disabled = true;
    try {
      const data = await api('POST', '/api/v1/sites', body);
      $('new-site-form').reset();
      toggleNewSite(false);
      notice('Site “' + data.site.name + '” created. Embed the widget with the snippet on its card.');
      await loadSites();
      const card = document.querySelector('[data-site="' + data.site.id + '"]');
      if (card) card.querySelector('details.embed').open = true;
    } catch (error) {
      $('new-site-error').textContent = describe(error);
    } finally { $('create-site').disabled = false; }
  });

  function tokenState(site) {
    return 'read token ' + (site.readTokenCreatedAt ? 'issued ' + when(site.readTokenCreatedAt) : 'not issued') + ' · write token ' + (site.writeTokenCreatedAt ? 'issued ' + when(site.writeTokenCreatedAt) : 'not issued');
  }

  function snippetOf(site) {
    return '<script src="' + location.origin + '/widget.js" data-site-key="' + site.siteKey + '" async></script>';
  }

  /** One primary action (Open); tokens, rename and, apart, Delete sit in the card's menu. */
  function siteCard(site, newCount) {
    const output = el('div', { className: 'secret-slot' });
    const heading = el('h3', { text: site.name });
    const snippet = snippetOf(site);
    const menu = el('details', { className: 'menu' }, [
      el('summary', { 'data-menu': site.id, 'aria-label': 'More actions for ' + site.name, text: 'More' }),
      el('div', { className: 'menu-body' }, [
        rotateButton(site, 'read', output),
        rotateButton(site, 'write', output),
        identitySecretButton(site, output),
        el('button', { type: 'button', className: 'secondary', 'data-rename': site.id, text: 'Rename', onclick: () => { menu.open = false; renameSite(site, card, heading); } }),
        el('hr'),
        confirmButton('Delete', 'Confirm: delete ' + site.name + ' and its feedback', { 'data-delete': site.id }, async () => {
          try {
            await api('DELETE', '/api/v1/sites/' + site.id);
            if (currentSite && currentSite.id === site.id) { currentSite = null; $('site-view').hidden = true; window.history.replaceState(null, '', location.pathname); }
            notice('Site “' + site.name + '” deleted.');
            await loadSites();
          } catch (error) { notice('Could not delete the site: ' + describe(error), true); }
        }),
      ]),
    ]);
    const card = el('article', { className: 'site', 'data-site': site.id }, [
      el('div', { className: 'site-head' }, [
        heading,
        el('span', { className: 'muted', text: site.slug }),
        el('span', { className: 'badge' + (newCount ? ' new' : ''), 'data-new-count': site.id, text: newCount + ' new' }),
      ]),
      el('p', { className: 'muted small-text', 'data-tokens': site.id, text: tokenState(site) }),
      el('details', { className: 'embed' }, [
        el('summary', { text: 'Widget snippet' }),
        el('div', { className: 'copy-row' }, [el('code', { className: 'snippet', text: snippet }), copyButton(snippet, 'snippet')]),
      ]),
      el('div', { className: 'row actions' }, [el('button', { type: 'button', 'data-open': site.id, text: 'Open ' + site.name, onclick: () => openSite(site) }), menu]),
      output,
    ]);
    return card;
  }

  function renameSite(site, card, heading) {
    const input = el('input', { type: 'text', maxlength: '100', value: site.name, 'aria-label': 'New name of ' + site.name });
    const error = el('p', { className: 'error', role: 'alert' });
    const form = el('form', { className: 'row rename' }, [input, el('button', { type: 'submit', text: 'Save name' }), el('button', { type: 'button', className: 'secondary', text: 'Cancel', onclick: () => form.replaceWith(heading) }), error]);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      try {
        const data = await api('PATCH', '/api/v1/sites/' + site.id, { name: input.value.trim() });
        notice('Renamed to “' + data.site.name + '”.');
        await loadSites();
      } catch (err) { error.textContent = describe(err); }
    });
    heading.replaceWith(form);
    input.focus();
    input.select();
  }

  /** "Create … token" when the site has none (no confirmation: nothing is replaced), else "Rotate …" with one. */
  function rotateButton(site, kind, output) {
    const exists = () => Boolean(kind === 'read' ? site.readTokenCreatedAt : site.writeTokenCreatedAt);
    const issue = async (button) => {
      const replaced = exists();
      try {
        const data = await api('POST', '/api/v1/sites/' + site.id + '/tokens/' + kind + '/rotate');
        clear(output).appendChild(secretBox((replaced ? 'New ' : 'Your ') + kind + ' token for ' + site.name + '. It is shown only this once: copy it now.' + (replaced ? ' The previous ' + kind + ' token has stopped working.' : ''), data.token, kind));
        const state = document.querySelector('[data-tokens="' + site.id + '"]');
        if (kind === 'read') site.readTokenCreatedAt = new Date().toISOString(); else site.writeTokenCreatedAt = new Date().toISOString();
        if (state) state.textContent = tokenState(site);
        if (button) button.replaceWith(rotateButton(site, kind, output));
      } catch (error) { notice((replaced ? 'Rotation' : 'Creating the token') + ' failed: ' + describe(error), true); }
    };
    if (exists()) return confirmButton('Rotate ' + kind + ' token', 'Confirm: replace the ' + kind + ' token', { 'data-rotate': kind }, () => issue(null));
    const button = el('button', { type: 'button', className: 'secondary', 'data-rotate': kind, text: 'Create ' + kind + ' token', onclick: () => issue(button) });
    return button;
  }

  /** A new identity secret for signed reporters (README "Signed reporter identity"); asks once more, since it may replace one. */
  function identitySecretButton(site, output) {
    return confirmButton('New identity secret', 'Confirm: tokens signed with an earlier secret stop working', { 'data-identity-secret': site.id }, async () => {
      try {
        const data = await api('POST', '/api/v1/sites/' + site.id + '/identity-secret');
        clear(output).appendChild(secretBox('Identity secret for ' + site.name + ': keep it on your server and sign reporter tokens with it (JWT HS256). It is shown only this once: copy it now. An earlier secret has stopped working.', data.secret, 'identity'));
      } catch (error) { notice('Creating the identity secret failed: ' + describe(error), true); }
    });
  }

  async function renderPortfolio() {
    const actions = clear($('portfolio-actions'));
    let state;
    try { state = await api('GET', '/api/v1/portfolio-token'); } catch (error) { notice('Could not read the portfolio token state: ' + describe(error), true); return; }
    $('portfolio-state').textContent = state.createdAt ? 'A portfolio token exists, issued ' + when(state.createdAt) + '.' : 'No portfolio token yet.';
    const issue = async () => {
      try {
        const data = await api('POST', '/api/v1/portfolio-token/rotate');
        clear($('portfolio-secret')).appendChild(secretBox((state.createdAt ? 'New portfolio token. It is shown only this once: copy it now. The previous one has stopped working.' : 'Your portfolio token. It is shown only this once: copy it now.'), data.token, 'portfolio'));
        await renderPortfolio();
      } catch (error) { notice('Issuing the token failed: ' + describe(error), true); }
    };
    actions.appendChild(state.createdAt
      ? confirmButton('Rotate portfolio token', 'Confirm: replace the portfolio token', { 'data-rotate': 'portfolio' }, issue)
      : el('button', { type: 'button', className: 'secondary', 'data-rotate': 'portfolio', text: 'Create portfolio token', onclick: issue }));
  }

  // ---- one site: feedback and batches ----
  function openSite(site, fromUrl) {
    currentSite = site;
    $('site-view').hidden = false;
    $('site-title').textContent = site.name;
    selectTab('feedback');
    closeEditor();
    webhooks.reset();
    const params = new URLSearchParams(fromUrl ? location.search : '');
    for (const name of FILTERS) $('filter-' + name).value = params.get(name) || (name === 'order' ? 'newest' : '');
    if (!$('filter-order').value) $('filter-order').value = 'newest';
    reloadFeedback();
    loadBatches();
    $('site-view').scrollIntoView();
    $('site-title').focus({ preventScroll: true });
  }

  const TABS = ['feedback', 'batches', 'webhooks'];
  function selectTab(which) {
    for (const name of TABS) {
      $('tab-' + name).setAttribute('aria-selected', String(name === which));
      $('tab-' + name).tabIndex = name === which ? 0 : -1;
      $('panel-' + name).hidden = name !== which;
    }
    // The endpoints are read each time their tab is shown (deliveries change while the owner looks elsewhere).
    if (which === 'webhooks') webhooks.load();
  }
  for (const name of TABS) $('tab-' + name).addEventListener('click', () => selectTab(name));
  $('tab-feedback').parentNode.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    const shown = TABS.findIndex((name) => $('tab-' + name).getAttribute('aria-selected') === 'true');
    const next = TABS[(shown + (event.key === 'ArrowRight' ? 1 : TABS.length - 1)) % TABS.length];
    selectTab(next);
    $('tab-' + next).focus();
  });

  /** The filters as query parameters (only those set; newest first is the default). */
  function filterParams() {
    const params = new URLSearchParams();
    for (const name of FILTERS) {
      const value = $('filter-' + name).value.trim();
      if (value && !(name === 'order' && value === 'newest')) params.set(name, value);
    }
    return params;
  }

  /** The URL says which site and filters are shown: a reload or a shared link shows the same list. */
  function writeUrl() {
    const params = filterParams();
    params.set('site', currentSite.id);
    window.history.replaceState(null, '', location.pathname + '?' + params);
  }

  function reloadFeedback() {
    feedbackOffset = 0;
    feedbackItems = [];
    selected = new Set();
    focusIndex = -1;
    feedbackLoad += 1;
    clear($('feedback-list'));
    updateSelection();
    writeUrl();
    loadFeedback();
  }
  let typing = null;
  $('filter-q').addEventListener('input', () => { clearTimeout(typing); typing = setTimeout(reloadFeedback, 250); });
  for (const name of ['type', 'status', 'from', 'to', 'order']) $('filter-' + name).addEventListener('change', reloadFeedback);
  $('feedback-filters').addEventListener('submit', (event) => { event.preventDefault(); clearTimeout(typing); reloadFeedback(); });

  async function loadFeedback() {
    const site = currentSite;
    const load = feedbackLoad;
    const params = filterParams();
    const filtered = params.toString() !== '' && !(params.size === 1 && params.has('order'));
    params.set('limit', '50');
    if (feedbackOffset) params.set('offset', String(feedbackOffset));
    try {
      const data = await api('GET', '/api/v1/sites/' + site.id + '/feedback/search?' + params);
      if (site !== currentSite || load !== feedbackLoad) return;
      const list = $('feedback-list');
      let table = list.querySelector('table');
      if (!table) {
        if (data.feedback.length === 0) list.appendChild(filtered ? el('p', { className: 'muted', text: 'No feedback matches these filters.' }) : emptyState(site));
        else {
          table = el('table', { className: 'feedback' }, [el('thead', {}, [el('tr', {}, [el('th', { scope: 'col' }, [el('span', { className: 'visually-hidden', text: 'Select' })])].concat(['When', 'Type', 'Rating', 'Message', 'Status'].map((h) => el('th', { scope: 'col', text: h }))))]), el('tbody')]);
          list.appendChild(table);
        }
      }
      for (const item of data.feedback) { feedbackItems.push(item); table.tBodies[0].appendChild(feedbackRow(item)); }
      feedbackOffset += data.feedback.length;
      $('feedback-total').textContent = data.total === 1 ? '1 item' : data.total + ' items';
      // Nothing to select or move through on an empty list: the bulk bar and the keys wait for items.
      $('bulk-bar').hidden = $('keys-help').hidden = feedbackItems.length === 0;
      $('more-feedback').hidden = !data.hasMore;
    } catch (error) { notice('Could not load feedback: ' + describe(error), true); }
  }
  $('more-feedback').addEventListener('click', loadFeedback);

  /** A site without feedback: the snippet to embed, and a test feedback to see the whole loop. */
  function emptyState(site) {
    const snippet = snippetOf(site);
    return el('div', { className: 'empty inset', 'data-empty': 'feedback' }, [
      el('p', {}, [el('strong', { text: 'No feedback yet.' }), ' Put this snippet before </body> on your site; the widget’s button appears at the bottom right.']),
      el('div', { className: 'copy-row' }, [el('code', { className: 'snippet', text: snippet }), copyButton(snippet, 'empty-snippet')]),
      el('div', { className: 'row' }, [el('button', { type: 'button', 'data-test-feedback': site.id, text: 'Send a test feedback', onclick: async (event) => {
        const button = event.currentTarget;
        button.disabled = true;
        try {
          const res = await fetch('/api/v1/widget/feedback', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ siteKey: site.siteKey, type: 'feedback', message: 'Test feedback sent from the dashboard', pageUrl: location.origin + '/dashboard' }) });
          if (!res.ok) throw new Error('The server answered ' + res.status);
          notice('Test feedback sent: this is how it arrives.');
          reloadFeedback();
          loadSites();
        } catch (error) { button.disabled = false; notice('Could not send the test feedback: ' + describe(error), true); }
      } })]),
    ]);
  }

  function contextText(context) {
    if (!context) return '';
    const parts = [context.browser, context.os, context.viewport, context.language].filter(Boolean);
    if (context.referrer) parts.push('from ' + context.referrer);
    return parts.join(' · ');
  }

  /** The signed reporter (verified by the server): name, e-mail and the host's user id, as text only. */
  function reporterText(reporter) {
    if (!reporter) return '';
    const who = [reporter.name, reporter.email ? '<' + reporter.email + '>' : ''].filter(Boolean).join(' ');
    return 'Reporter: ' + (who ? who + ' · id ' : 'id ') + reporter.id;
  }

  function feedbackRow(item) {
    const select = el('select', { className: 'triage', 'aria-label': 'Status of feedback from ' + item.createdAt, 'data-feedback': item.id }, ['new', 'triaged', 'resolved'].map((s) =>
      el('option', { value: s, text: s.charAt(0).toUpperCase() + s.slice(1), disabled: s === 'new' && item.status !== 'new', selected: s === item.status })));
    select.addEventListener('change', () => setStatus([item.id], select.value));
    const box = el('input', { type: 'checkbox', 'data-select': item.id, 'aria-label': 'Select feedback from ' + item.createdAt });
    box.addEventListener('change', () => { if (box.checked) selected.add(item.id); else selected.delete(item.id); updateSelection(); });
    const page = el('a', { href: /^https?:/.test(item.pageUrl) ? item.pageUrl : null, rel: 'noopener noreferrer', target: '_blank', text: item.pageUrl });
    const stars = item.rating == null ? '—' : '★'.repeat(item.rating) + '☆'.repeat(5 - item.rating);
    const context = contextText(item.reporterContext);
    const reporter = reporterText(item.reporter);
    return el('tr', { 'data-row': item.id }, [
      el('td', { className: 'pick' }, [box]),
      el('td', { 'data-label': 'When', text: item.createdAt }),
      el('td', { 'data-label': 'Type' }, [el('span', { className: 'badge type-' + item.type, text: TYPE_LABELS[item.type] || item.type })]),
      el('td', { 'data-label': 'Rating' }, [el('span', { className: 'stars', 'aria-label': item.rating == null ? 'no rating' : item.rating + ' of 5', text: stars })]),
      el('td', { 'data-label': 'Message', className: 'message' }, [
        el('div', { text: item.message }),
        el('div', { className: 'muted small-text' }, [page]),
        reporter ? el('div', { className: 'small-text', 'data-reporter': item.id, text: reporter }) : null,
        context ? el('div', { className: 'muted small-text', 'data-context': item.id, text: context }) : null,
      ]),
      el('td', { 'data-label': 'Status' }, [select]),
    ]);
  }

  /** One route for one item or many: the bulk route answers the ids it changed. */
  async function setStatus(ids, status) {
    const rows = ids.map((id) => document.querySelector('tr[data-row="' + id + '"] select.triage')).filter(Boolean);
    for (const select of rows) select.disabled = true;
    try {
      const data = await api('POST', '/api/v1/sites/' + currentSite.id + '/feedback/status', { ids, status });
      for (const id of data.updated) {
        const item = feedbackItems.find((i) => i.id === id);
        if (item) item.status = status;
        const select = document.querySelector('tr[data-row="' + id + '"] select.triage');
        if (select) { select.value = status; select.querySelector('option[value=new]').disabled = true; }
      }
      notice(data.updated.length === 1 ? 'Feedback marked ' + status + '.' : data.updated.length + ' items marked ' + status + '.');
      refreshCounts();
    } catch (error) {
      for (const id of ids) { const item = feedbackItems.find((i) => i.id === id); const select = document.querySelector('tr[data-row="' + id + '"] select.triage'); if (item && select) select.value = item.status; }
      notice('Could not change the status: ' + describe(error), true);
    } finally { for (const select of rows) select.disabled = false; }
  }

  let countsAsked = 0; // only the latest answer paints the badges
  async function refreshCounts() {
    const asked = ++countsAsked;
    try {
      const counts = await api('GET', '/api/v1/feedback/new-counts');
      if (asked !== countsAsked) return;
      for (const c of counts.sites) {
        const badge = document.querySelector('[data-new-count="' + c.siteId + '"]');
        if (badge) { badge.textContent = c.count + ' new'; badge.className = 'badge' + (c.count ? ' new' : ''); }
      }
    } catch (_) { /* the badges stay as they were */ }
  }

  function updateSelection() {
    const n = selected.size;
    $('selected-count').textContent = n ? n + ' selected' : '';
    $('bulk-triaged').disabled = $('bulk-resolved').disabled = n === 0;
    $('select-all').checked = n > 0 && n === feedbackItems.length;
  }
  $('select-all').addEventListener('change', () => {
    selected = new Set($('select-all').checked ? feedbackItems.map((i) => i.id) : []);
    for (const box of document.querySelectorAll('[data-select]')) box.checked = selected.has(box.getAttribute('data-select'));
    updateSelection();
  });
  $('bulk-triaged').addEventListener('click', () => setStatus(Array.from(selected), 'triaged'));
  $('bulk-resolved').addEventListener('click', () => setStatus(Array.from(selected), 'resolved'));

  /** CSV of the current filter: fetched with the session (a plain link could not send it), saved as a file. */
  $('download-csv').addEventListener('click', async () => {
    const button = $('download-csv');
    button.disabled = true;
    try {
      const path = '/api/v1/sites/' + currentSite.id + '/feedback/export.csv?' + filterParams();
      let res = await fetch(path, { headers: { Authorization: 'Bearer ' + auth.get().token } });
      if (res.status === 401) { await auth.refresh(); res = await fetch(path, { headers: { Authorization: 'Bearer ' + auth.get().token } }); }
      if (!res.ok) { const json = await res.json().catch(() => null); throw Object.assign(new Error(json && json.error ? json.error.message : 'The server answered ' + res.status), { details: json && json.error && json.error.details }); }
      const url = URL.createObjectURL(await res.blob());
      const link = el('a', { href: url, download: currentSite.slug + '-feedback.csv' });
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (error) { notice('Could not download the CSV: ' + describe(error), true); } finally { button.disabled = false; }
  });

  /** j/k or arrows move between rows, x selects, t/r set the status, / jumps to the search. */
  function focusRow(index) {
    const rows = document.querySelectorAll('#feedback-list tr[data-row]');
    if (rows.length === 0) return;
    focusIndex = Math.max(0, Math.min(rows.length - 1, index));
    for (const row of rows) row.classList.remove('current');
    rows[focusIndex].classList.add('current');
    rows[focusIndex].scrollIntoView({ block: 'nearest' });
  }
  document.addEventListener('keydown', (event) => {
    if (!currentSite || $('panel-feedback').hidden || event.ctrlKey || event.metaKey || event.altKey) return;
    const tag = event.target.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') { if (event.key === 'Escape') event.target.blur(); return; }
    const rows = document.querySelectorAll('#feedback-list tr[data-row]');
    const current = rows[focusIndex];
    if (event.key === 'j' || event.key === 'ArrowDown') focusRow(focusIndex + 1);
    else if (event.key === 'k' || event.key === 'ArrowUp') focusRow(focusIndex - 1);
    else if (event.key === '/') $('filter-q').focus();
    else if (event.key === 'x' && current) { current.querySelector('[data-select]').click(); }
    else if ((event.key === 't' || event.key === 'r') && current) setStatus([current.getAttribute('data-row')], event.key === 't' ? 'triaged' : 'resolved');
    else return;
    event.preventDefault();
  });

  // ---- question batches ----
  async function loadBatches() {
    const site = currentSite;
    try {
      const data = await api('GET', '/api/v1/sites/' + site.id + '/questions');
      if (site !== currentSite) return;
      const box = clear($('batch-list'));
      if (data.batches.length === 0) box.appendChild(el('p', { className: 'muted', text: 'No question batches yet. “New question batch” writes one; send it when it reads right.' }));
      for (const batch of data.batches.slice().reverse()) box.appendChild(batchCard(batch));
    } catch (error) { notice('Could not load question batches: ' + describe(error), true); }
  }

  function questionEditor(index) {
    const n = index + 1;
    const box = el('div', { className: 'question-editor', 'data-question': String(n) }, [
      el('label', { for: 'q-title-' + n, text: 'Question ' + n }),
      el('input', { id: 'q-title-' + n, type: 'text', maxlength: '200', className: 'q-title', placeholder: 'Which pages need new copy?' }),
      el('label', { for: 'q-html-' + n, text: 'Details for question ' + n }),
      el('textarea', { id: 'q-html-' + n, rows: '3', maxlength: '20000', className: 'q-html', placeholder: '<p>Optional: context, a list, a link.</p>' }),
    ]);
    if (index > 0) box.appendChild(el('div', { className: 'row' }, [el('button', { type: 'button', className: 'secondary small', text: 'Remove question ' + n, onclick: () => { box.remove(); renumber(); } })]));
    return box;
  }
  function renumber() {
    const editors = Array.from(document.querySelectorAll('#batch-questions .question-editor'));
    const values = editors.map((box) => [box.querySelector('.q-title').value, box.querySelector('.q-html').value]);
    for (const box of editors) box.remove();
    for (const [title, html] of values) addQuestion(title, html);
  }
  function addQuestion(title, html) {
    const count = document.querySelectorAll('#batch-questions .question-editor').length;
    const box = questionEditor(count);
    box.querySelector('.q-title').value = title || '';
    box.querySelector('.q-html').value = html || '';
    $('batch-questions').appendChild(box);
    return box;
  }
  function openEditor() {
    $('batch-editor').reset();
    for (const box of Array.from(document.querySelectorAll('#batch-questions .question-editor'))) box.remove();
    addQuestion();
    $('batch-preview').hidden = true;
    $('batch-error').textContent = '';
    $('batch-editor').hidden = false;
    $('new-batch').hidden = true;
    $('batch-title').focus();
  }
  function closeEditor() {
    $('batch-editor').hidden = true;
    $('new-batch').hidden = false;
  }
  function batchInput() {
    const questions = Array.from(document.querySelectorAll('#batch-questions .question-editor')).map((box, i) => ({
      n: i + 1, title: box.querySelector('.q-title').value.trim(), html: box.querySelector('.q-html').value,
    }));
    const input = { title: $('batch-title').value.trim(), questions };
    if ($('batch-intro').value.trim()) input.introHtml = $('batch-intro').value;
    if ($('batch-notify').value.trim()) input.notifyEmail = $('batch-notify').value.trim();
    return input;
  }
  $('new-batch').addEventListener('click', openEditor);
  $('cancel-batch').addEventListener('click', closeEditor);
  $('add-question').addEventListener('click', () => addQuestion().querySelector('.q-title').focus());

  $('preview-batch').addEventListener('click', async () => {
    const input = batchInput();
    $('batch-error').textContent = '';
    try {
      const data = await api('POST', '/api/v1/sites/' + currentSite.id + '/questions/preview', { introHtml: input.introHtml, questions: input.questions });
      const body = clear($('batch-preview-body'));
      if (data.introHtml) { const intro = el('div', { className: 'intro' }); intro.innerHTML = data.introHtml; body.appendChild(intro); }
      for (const q of data.questions) {
        const html = el('div', { className: 'question-body' });
        html.innerHTML = q.html;
        body.appendChild(el('div', { className: 'question' }, [el('h5', { text: q.n + '. ' + q.title }), html]));
      }
      $('batch-preview').hidden = false;
    } catch (error) { $('batch-error').textContent = describe(error); }
  });

  async function createBatch(sendNow) {
    const input = batchInput();
    input.sendNow = sendNow;
    $('batch-error').textContent = '';
    for (const id of ['save-draft', 'create-and-send']) $(id).disabled = true;
    try {
      const data = await api('POST', '/api/v1/sites/' + currentSite.id + '/questions', input);
      closeEditor();
      notice(sendNow ? 'Sent. Give the recipient this link: ' + data.shareUrl : 'Draft “' + input.title + '” saved. Send it from its card when it reads right.');
      await loadBatches();
    } catch (error) {
      $('batch-error').textContent = describe(error);
    } finally { for (const id of ['save-draft', 'create-and-send']) $(id).disabled = false; }
  }
  $('batch-editor').addEventListener('submit', (event) => { event.preventDefault(); createBatch(false); });
  $('create-and-send').addEventListener('click', () => createBatch(true));

  function batchCard(batch) {
    const details = el('div', { className: 'batch-details' });
    const linkBox = el('div', { className: 'batch-link' });
    const base = '/api/v1/sites/' + currentSite.id + '/questions/' + batch.id;
    const buttons = [el('button', { type: 'button', className: 'secondary', 'aria-expanded': 'false', text: 'Show questions and answers', onclick: (event) => toggleBatch(base, details, event.currentTarget) })];
    if (batch.status === 'draft') {
      buttons.push(el('button', { type: 'button', 'data-send': batch.id, text: 'Send “' + batch.title + '”', onclick: async (event) => {
        const button = event.currentTarget;
        button.disabled = true;
        try {
          const data = await api('POST', base + '/send');
          notice('Sent. Give the recipient this link: ' + data.shareUrl);
          await loadBatches();
        } catch (error) { button.disabled = false; notice('Could not send: ' + describe(error), true); }
      } }));
    } else {
      buttons.push(el('button', { type: 'button', className: 'secondary', text: 'Show share link', onclick: async () => {
        try {
          const data = await api('GET', base + '/link');
          clear(linkBox).appendChild(el('div', { className: 'copy-row' }, [el('a', { href: data.shareUrl, target: '_blank', rel: 'noopener noreferrer', 'data-share-link': batch.id, text: data.shareUrl }), copyButton(data.shareUrl, 'share-link')]));
        } catch (error) { notice('Could not fetch the link: ' + describe(error), true); }
      } }));
    }
    return el('article', { className: 'batch', 'data-batch': batch.id }, [
      el('h3', {}, [batch.title + ' ', el('span', { className: 'badge ' + batch.status, 'data-status': batch.status, text: batch.status })]),
      el('p', { className: 'muted small-text', text: batch.answerCount + ' of ' + batch.questionCount + ' answered · created ' + when(batch.createdAt) + (batch.sentAt ? ' · sent ' + when(batch.sentAt) : '') + (batch.openedAt ? ' · opened ' + when(batch.openedAt) : '') + (batch.answeredAt ? ' · answered ' + when(batch.answeredAt) : '') }),
      el('div', { className: 'row' }, buttons),
      linkBox,
      details,
    ]);
  }

  async function toggleBatch(path, box, button) {
    if (button.getAttribute('aria-expanded') === 'true') {
      clear(box);
      button.setAttribute('aria-expanded', 'false');
      button.textContent = 'Show questions and answers';
      return;
    }
    try {
      const { batch } = await api('GET', path);
      clear(box);
      if (batch.introHtml) { const intro = el('div', { className: 'intro' }); intro.innerHTML = batch.introHtml; box.appendChild(intro); }
      box.appendChild(el('p', { className: 'muted small-text', text: 'Notifications go to ' + batch.notifyEmail }));
      for (const q of batch.questions) {
        const body = el('div', { className: 'question-body' });
        body.innerHTML = q.html;
        box.appendChild(el('div', { className: 'question', 'data-question': String(q.n) }, [
          el('h4', { text: q.n + '. ' + q.title }),
          body,
          q.answer
            ? el('div', {}, [el('div', { className: 'answer', 'data-answer': String(q.n), text: q.answer.text }), el('p', { className: 'muted small-text', text: 'Updated ' + when(q.answer.updatedAt) })])
            : el('p', { className: 'muted', text: 'No answer yet' }),
        ]));
      }
      button.setAttribute('aria-expanded', 'true');
      button.textContent = 'Hide questions and answers';
    } catch (error) { notice('Could not load the batch: ' + describe(error), true); }
  }

  const stored = auth.get();
  if (stored && stored.token) showSignedIn(); else signOut('');
  document.body.setAttribute('data-ready', 'true');
})();
