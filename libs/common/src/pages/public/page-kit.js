/*
 * What the dashboard's and the account pages' scripts share (served as /assets/page-kit.js, loaded before them;
 * plain browser JavaScript, no build step): DOM building with textContent only, the API envelope, the signed-in
 * session with its one-at-a-time refresh, and the buttons both use. It sets window.PageKit and nothing else.
 */
(function () {
  'use strict';

  const $ = (id) => document.getElementById(id);

  /** An element: `text` sets textContent, `on<event>` adds a listener, other keys are attributes (false/null left out). */
  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === 'text') node.textContent = value;
      else if (key === 'className') node.className = value;
      else if (key.slice(0, 2) === 'on') node.addEventListener(key.slice(2), value);
      else if (value !== false && value != null) node.setAttribute(key, value === true ? '' : value);
    }
    for (const child of children || []) if (child != null) node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    return node;
  }
  const clear = (node) => { while (node.firstChild) node.removeChild(node.firstChild); return node; };
  const when = (iso) => (iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '—');
  /** The page's one status line (#notice). */
  function notice(text, isError) { const n = $('notice'); n.textContent = text || ''; n.className = 'status-line' + (isError ? ' error' : ''); }

  /** The server's words for an error, with each invalid field (details.fields). */
  function describe(error) {
    const fields = (error.details && error.details.fields) || [];
    const extra = fields.flatMap((f) => f.messages).filter((m) => m !== error.message);
    return [error.message].concat(extra).join(' · ');
  }

  /** A JSON call: the envelope's `data`, or an Error carrying the envelope's status, code and details. */
  async function request(url, method, body, token) {
    const headers = { Accept: 'application/json' };
    if (token) headers.Authorization = 'Bearer ' + token;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(url, { method: method || 'GET', headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = await res.json().catch(() => null);
    if (!res.ok || !json || !json.success) {
      const error = new Error(json && json.error ? json.error.message : 'The server answered ' + res.status);
      error.status = res.status;
      error.code = json && json.error ? json.error.code : undefined;
      error.details = json && json.error ? json.error.details : undefined;
      throw error;
    }
    return json.data;
  }

  /**
   * The signed-in session kept in sessionStorage under `store`: {token, refreshToken, email}. `api` calls with its
   * access token; when that has expired (401 AUTH_REQUIRED) it refreshes once and retries, and when the refresh fails
   * `ended` is called. One refresh at a time: calls that fail together (a page loads several at once) share it, since
   * two refreshes with the same refresh token would read as its theft and end the session.
   */
  function signedInSession(store, refreshUrl, ended) {
    let current = null;
    let refreshing = null;
    try { current = JSON.parse(sessionStorage.getItem(store) || 'null'); } catch (_) { current = null; }
    const self = {
      get: () => current,
      save(data) {
        current = data;
        if (data) sessionStorage.setItem(store, JSON.stringify(data)); else sessionStorage.removeItem(store);
      },
      refresh() {
        if (!current || !current.refreshToken) return Promise.reject(new Error('Signed out'));
        if (!refreshing) {
          const was = current;
          refreshing = request(refreshUrl, 'POST', { refreshToken: was.refreshToken })
            .then((data) => self.save({ token: data.token, refreshToken: data.refreshToken, email: was.email }))
            .finally(() => { refreshing = null; });
        }
        return refreshing;
      },
      async api(method, path, body) {
        if (!current) throw new Error('Signed out');
        try {
          return await request(path, method, body, current.token);
        } catch (error) {
          if (error.status !== 401 || error.code !== 'AUTH_REQUIRED') throw error;
          try { await self.refresh(); } catch (_) { ended('Your session ended; please sign in again.'); throw error; }
          return request(path, method, body, current.token);
        }
      },
    };
    return self;
  }

  /**
   * A button that asks once more before it acts (no window.confirm: it blocks and cannot be styled); a failure of the
   * action is shown on the status line. `small` for buttons inside a list row.
   */
  function confirmButton(label, confirmLabel, attrs, action, small) {
    const size = small ? ' small' : '';
    let armed = false;
    const button = el('button', Object.assign({ type: 'button', className: 'secondary' + size, text: label }, attrs));
    const reset = () => { armed = false; button.className = 'secondary' + size; button.textContent = label; };
    button.addEventListener('click', async () => {
      if (!armed) {
        armed = true;
        button.className = 'danger' + size;
        button.textContent = confirmLabel;
        return;
      }
      button.disabled = true;
      try { await action(); } catch (error) { notice(describe(error), true); } finally { button.disabled = false; reset(); }
    });
    button.addEventListener('blur', () => { if (armed && !button.disabled) setTimeout(reset, 200); });
    return button;
  }

  /** A button that copies `value`; says so for a moment (and for screen readers). */
  function copyButton(value, what) {
    const button = el('button', { type: 'button', className: 'secondary small', 'data-copy': what, text: 'Copy' });
    button.addEventListener('click', async () => {
      try { await navigator.clipboard.writeText(value); button.textContent = 'Copied'; } catch (_) { button.textContent = 'Select and copy'; }
      setTimeout(() => { button.textContent = 'Copy'; }, 2000);
    });
    return button;
  }

  window.PageKit = { $, el, clear, when, notice, describe, request, signedInSession, confirmButton, copyButton };
})();
