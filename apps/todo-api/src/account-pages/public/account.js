/*
 * The account pages (served as /assets/account.js; plain browser JavaScript, no build step). One script for every
 * account page: the page says which it is in <body data-page>. It calls this service's JSON API; the tokens of a
 * sign-in are kept in sessionStorage, as the feedback dashboard keeps its own. Everything is built with DOM calls and
 * textContent; the page's CSP forbids inline script besides.
 */
(function () {
  'use strict';
  const STORE = 'account-session';
  const PAGE = document.body.getAttribute('data-page');

  const { $, el, clear, when, notice, describe, request, confirmButton: confirmAction, copyButton } = window.PageKit;
  // The signed-in session; an expired access token is refreshed once, then the user signs in again.
  const auth = window.PageKit.signedInSession(STORE, '/api/v1/auth/refresh', (message) => goToSignIn(message));
  const api = auth.api;
  /** The confirming button of a list row (small). */
  const confirmButton = (label, confirmLabel, attrs, action) => confirmAction(label, confirmLabel, attrs, action, true);

  /** The session id the access token carries (its `sid` claim), to tell this session in the list. */
  function currentSessionId() {
    try { return JSON.parse(window.atob(auth.get().token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))).sid || null; } catch (_) { return null; }
  }

  /** Leaves for the sign-in page, with a message it shows (kept for that one page view). */
  function goToSignIn(message) {
    auth.save(null);
    if (message) sessionStorage.setItem(STORE + '-notice', message);
    location.assign('/account/sign-in');
  }
  function takeNotice() {
    const message = sessionStorage.getItem(STORE + '-notice');
    sessionStorage.removeItem(STORE + '-notice');
    return message;
  }

  /** Runs a form's submit with its button disabled and its error line cleared; errors land in that line. */
  function onSubmit(formId, errorId, work) {
    $(formId).addEventListener('submit', async (event) => {
      event.preventDefault();
      const buttons = $(formId).querySelectorAll('button');
      buttons.forEach((b) => { b.disabled = true; });
      $(errorId).textContent = '';
      try { await work(); } catch (error) { $(errorId).textContent = describe(error); } finally { buttons.forEach((b) => { b.disabled = false; }); }
    });
  }


  /** Runs a button's work with it disabled and its error line cleared; errors land in that line. */
  function onClick(buttonId, errorId, work) {
    $(buttonId).addEventListener('click', async () => {
      $(buttonId).disabled = true;
      $(errorId).textContent = '';
      try { await work(); } catch (error) { $(errorId).textContent = describe(error); } finally { $(buttonId).disabled = false; }
    });
  }

  // ---- passkeys (WebAuthn through @simplewebauthn/browser, /assets/simplewebauthn-browser.js) ----
  const webauthn = window.SimpleWebAuthnBrowser;
  const passkeysWork = Boolean(webauthn && webauthn.browserSupportsWebAuthn());

  /** The browser's part of a ceremony; its refusals (cancelled, timed out, no passkey here) in words. */
  async function passkeyCeremony(start, options) {
    try {
      return await start({ optionsJSON: options });
    } catch (error) {
      if (error && (error.name === 'NotAllowedError' || error.code === 'ERROR_CEREMONY_ABORTED')) error.message = 'No passkey was used (cancelled, timed out, or none on this device).';
      else if (error && error.name === 'InvalidStateError') error.message = 'This authenticator holds a passkey of this account already.';
      throw error;
    }
  }

  /**
   * A fresh passkey proof: one of the signed-in account's passkeys signs the options of POST
   * /api/v1/account/passkey-check-options (once, minutes), sent as `passkey` where a request asks for a fresh factor check
   * (new recovery codes, a passkey's removal, password change, deletion) instead of a typed code.
   */
  async function freshPasskeyProof() {
    const { options } = await api('POST', '/api/v1/account/passkey-check-options', {});
    return passkeyCeremony(webauthn.startAuthentication, options);
  }

  /** The authenticator's six digits, or else a recovery code. */
  function factorBody(typed, extra) {
    const value = typed.trim();
    return Object.assign(extra || {}, /^[0-9]{6}$/.test(value) ? { code: value } : { recoveryCode: value });
  }

  // ---- signed-out pages ----
  function signedInWith(data, email) {
    auth.save({ token: data.token, refreshToken: data.refreshToken, email: (data.user && data.user.email) || email });
    location.assign('/account');
  }

  function signInPage() {
    let pending = null;
    const showPasswordStep = (message) => {
      pending = null;
      $('factor-form').reset();
      $('factor-form').hidden = true;
      $('sign-in-form').hidden = false;
      $('passkey-sign-in-box').hidden = !passkeysWork;
      $('sign-in-error').textContent = message || '';
    };
    $('passkey-sign-in-box').hidden = !passkeysWork;
    // Passwordless: the browser offers the passkeys it holds for this site; no e-mail asked.
    onClick('passkey-sign-in', 'passkey-sign-in-error', async () => {
      $('sign-in-error').textContent = '';
      const { options } = await request('/api/v1/auth/passkey/options', 'POST', {});
      const credential = await passkeyCeremony(webauthn.startAuthentication, options);
      try {
        signedInWith(await request('/api/v1/auth/passkey/verify', 'POST', { credential }), '');
      } catch (error) {
        if (error.code === 'INVALID_CREDENTIALS') error.message = 'That passkey was not accepted: it may have been removed from your account.';
        throw error;
      }
    });
    // The second factor answered by a passkey instead of a code.
    onClick('factor-passkey-button', 'factor-error', async () => {
      if (!pending) return showPasswordStep('');
      try {
        const { options } = await request('/api/v1/auth/mfa/passkey-options', 'POST', { challengeToken: pending.challengeToken });
        const passkey = await passkeyCeremony(webauthn.startAuthentication, options);
        signedInWith(await request('/api/v1/auth/mfa/verify', 'POST', { challengeToken: pending.challengeToken, passkey }), pending.email);
      } catch (error) {
        if (error.code === 'INVALID_TOKEN') return showPasswordStep('The sign-in expired: sign in again.');
        if (error.code === 'INVALID_CREDENTIALS') error.message = 'That passkey was not accepted: use another one or a code.';
        throw error;
      }
    });
    onSubmit('sign-in-form', 'sign-in-error', async () => {
      const email = $('email').value.trim();
      try {
        const data = await request('/api/v1/auth/login', 'POST', { email, password: $('password').value });
        signedInWith(data, email);
      } catch (error) {
        $('password').value = '';
        if (error.code === 'MFA_REQUIRED' && error.details && typeof error.details.challengeToken === 'string') {
          pending = { challengeToken: error.details.challengeToken, email };
          const methods = Array.isArray(error.details.methods) ? error.details.methods : [];
          $('sign-in-form').hidden = true;
          $('passkey-sign-in-box').hidden = true;
          $('factor-passkey').hidden = !(passkeysWork && methods.includes('passkey'));
          $('factor-form').hidden = false;
          ($('factor-passkey').hidden ? $('factor-code') : $('factor-passkey-button')).focus();
          return;
        }
        if (error.code === 'INVALID_CREDENTIALS') error.message = 'Wrong e-mail or password.';
        throw error;
      }
    });
    onSubmit('factor-form', 'factor-error', async () => {
      if (!pending) return showPasswordStep('');
      try {
        const data = await request('/api/v1/auth/mfa/verify', 'POST', factorBody($('factor-code').value, { challengeToken: pending.challengeToken }));
        signedInWith(data, pending.email);
      } catch (error) {
        if (error.code === 'INVALID_TOKEN') return showPasswordStep('The sign-in expired: sign in again.');
        if (error.code === 'INVALID_CREDENTIALS') error.message = 'Wrong or already used code.';
        throw error;
      }
    });
    $('factor-cancel').addEventListener('click', () => showPasswordStep(''));
    notice(takeNotice() || '');
    $('email').focus();
  }

  function signUpPage() {
    onSubmit('sign-up-form', 'sign-up-error', async () => {
      const email = $('email').value.trim();
      const data = await request('/api/v1/auth/signup', 'POST', { email, password: $('password').value, passwordConfirm: $('password-confirm').value });
      sessionStorage.setItem(STORE + '-notice', 'Account created. We sent a link to ' + email + ' to confirm the address.');
      signedInWith(data, email);
    });
    $('email').focus();
  }

  async function verifyEmailPage() {
    // `#token=`: the signup's (or resent) confirmation; `#change=`: the confirmation of a new address, mailed to it;
    // `#revert=`: putting the old address back, from the notice mailed to it.
    const fragment = new URLSearchParams(location.hash.slice(1));
    const isChange = fragment.has('change');
    const revertToken = fragment.get('revert');
    const token = isChange ? fragment.get('change') : fragment.get('token');
    // The code leaves the address bar (and the history) at once.
    if (location.hash) window.history.replaceState(null, '', location.pathname);
    if (revertToken !== null) return revertEmail(revertToken);
    const confirm = async (value) => {
      await request(isChange ? '/api/v1/account/email/confirm' : '/api/v1/auth/verify-email', 'POST', { token: value });
      $('verify-form').hidden = true;
      $('verify-state').textContent = isChange ? 'Your new e-mail address is confirmed: sign in with it from now on.' : 'Your e-mail address is confirmed.';
      $('verify-state').className = 'status-line done';
    };
    onSubmit('verify-form', 'verify-error', () => confirm($('verify-code').value.trim()));
    if (!token) {
      $('verify-state').textContent = 'Paste the code from the e-mail.';
      $('verify-form').hidden = false;
      return;
    }
    try {
      await confirm(token);
    } catch (error) {
      $('verify-state').textContent = '';
      $('verify-form').hidden = false;
      $('verify-error').textContent = describe(error) + (isChange ? '. Ask for the change again to get a new link.' : '. Ask for a new link from your account page.');
    }
  }

  /** The old address back (every session signed out): the link of the "your e-mail address was changed" notice. */
  async function revertEmail(token) {
    document.querySelector('h1').lastChild.textContent = ' Put your e-mail address back';
    $('verify-state').textContent = 'Restoring…';
    try {
      await request('/api/v1/account/email/revert', 'POST', { token });
      sessionStorage.removeItem(STORE);
      $('verify-state').textContent = 'Your e-mail address is back and every session was signed out. Reset your password now: whoever changed the address knew it.';
      $('verify-state').className = 'status-line done';
      $('verify-state').after(el('p', { className: 'small-text' }, [el('a', { href: '/account/forgot-password', text: 'Reset your password' })]));
    } catch (error) {
      $('verify-state').textContent = describe(error) + '. The link works once, within 7 days of the change.';
      $('verify-state').className = 'error';
    }
  }

  function resetPages() {
    const showReset = (email) => {
      $('forgot-form').hidden = true;
      $('reset-form').hidden = false;
      if (email) $('reset-email').value = email;
      (email ? $('reset-code') : $('reset-email')).focus();
    };
    onSubmit('forgot-form', 'forgot-error', async () => {
      const email = $('forgot-email').value.trim();
      const data = await request('/api/v1/auth/forgot-password', 'POST', { email });
      notice(data.message + '.');
      showReset(email);
    });
    onSubmit('reset-form', 'reset-error', async () => {
      const { token } = await request('/api/v1/auth/verify-reset-code', 'POST', { email: $('reset-email').value.trim(), code: $('reset-code').value.trim() });
      await request('/api/v1/auth/reset-password', 'POST', { token, password: $('reset-password').value, passwordConfirm: $('reset-password-confirm').value });
      goToSignIn('Your password is set: sign in with it. Every session was signed out.');
    });
    if (PAGE === 'resetPassword') showReset(''); else $('forgot-email').focus();
  }

  // ---- the account centre ----
  let mfaEnabled = false;
  /** How many passkeys the account has (the MFA status and the passkey list both tell). */
  let passkeyCount = 0;

  /** Whether a passkey can answer a check here: the browser has WebAuthn and the account has a passkey. */
  function passkeyCanAnswer() {
    return passkeysWork && passkeyCount > 0;
  }

  /** Every "Use a passkey" of the centre's forms ([data-passkey-proof]) shown while a passkey can answer the check. */
  function showPasskeyProofs(count) {
    passkeyCount = count;
    document.querySelectorAll('[data-passkey-proof]').forEach((box) => { box.hidden = !passkeyCanAnswer(); });
  }

  /** A "Use a passkey" box for a form built here: a copy of the page's own (#passkey-proof-template), shown as the others are. */
  function passkeyProofBox() {
    const box = $('passkey-proof-template').content.firstElementChild.cloneNode(true);
    box.hidden = !passkeyCanAnswer();
    return box;
  }

  /** The typed `code` of a form that asks for one only of an account with a second factor (none typed: none sent, and the API says when it is needed). */
  function typedCode(inputId) {
    const code = $(inputId).value.trim();
    return code ? { code } : {};
  }

  /**
   * The "Use a passkey" of a form whose factor can also be typed: the form's other fields checked as its submit would
   * (the typed code aside), then `send({ passkey })` with a fresh passkey proof; errors land in `errorLine`.
   */
  function onPasskeyProof(form, codeInput, errorLine, send) {
    form.querySelector('[data-passkey-proof] button').addEventListener('click', async () => {
      errorLine.textContent = '';
      const fields = Array.from(form.querySelectorAll('input')).filter((field) => field !== codeInput && !field.closest('[hidden]'));
      if (!fields.every((field) => field.reportValidity())) return;
      const buttons = form.querySelectorAll('button');
      buttons.forEach((b) => { b.disabled = true; });
      try { await send({ passkey: await freshPasskeyProof() }); } catch (error) { errorLine.textContent = describe(error); } finally { buttons.forEach((b) => { b.disabled = false; }); }
    });
  }

  async function loadProfile() {
    const { user } = await api('GET', '/api/v1/auth/verify');
    $('who').textContent = 'Signed in as ' + user.email;
    $('profile-email').textContent = user.email;
    $('profile-username').textContent = user.username;
    const confirmed = user.email_confirmed === 1;
    $('profile-confirmed').textContent = confirmed ? 'confirmed' : 'not confirmed';
    $('profile-confirmed').className = 'badge' + (confirmed ? ' answered' : ' draft');
    $('unconfirmed').hidden = confirmed;
    $('email-change-form').hidden = !confirmed;
    $('email-change-unconfirmed').hidden = confirmed;
    showPendingEmail(user.email);
  }

  /** The change asked for in this tab, until the new address is the account's (the link mailed to it was opened). */
  function showPendingEmail(current) {
    const pending = JSON.parse(sessionStorage.getItem(STORE + '-email-pending') || 'null');
    const live = pending && pending.email.toLowerCase() !== String(current).toLowerCase() && Date.now() - pending.at < 24 * 3600 * 1000;
    if (!live) sessionStorage.removeItem(STORE + '-email-pending');
    $('email-change-pending').hidden = !live;
    $('email-change-pending').textContent = live
      ? 'Waiting for confirmation: if ' + pending.email + ' can be used, we sent it a link (valid 24 hours). Your address stays ' + current + ' until the link is opened.'
      : '';
  }

  async function loadMfa() {
    const status = await api('GET', '/api/v1/account/mfa');
    mfaEnabled = status.totpEnabled || status.passkeys > 0;
    const recovery = ' Recovery codes left: ' + status.recoveryCodesRemaining + '.';
    if (status.totpEnabled) $('mfa-state').textContent = 'On since ' + when(status.totpConfirmedAt) + '. Sign-in asks for a code' + (status.passkeys > 0 ? ' or a passkey.' : '.') + recovery;
    else if (status.passkeys > 0) $('mfa-state').textContent = 'Off. Sign-in asks for a passkey (or a recovery code) after the password.' + recovery;
    else $('mfa-state').textContent = 'Off. Sign-in asks for your password only.';
    $('password-code-field').hidden = !mfaEnabled;
    $('delete-code-field').hidden = !mfaEnabled;
    showPasskeyProofs(status.passkeys);
    $('totp-check-form').hidden = !status.totpEnabled;
    $('totp-start-form').hidden = status.totpEnabled || !$('totp-confirm-form').hidden;
    // Without an authenticator app, a passkey is the fresh check for new recovery codes.
    $('passkey-codes-form').hidden = status.totpEnabled || status.passkeys === 0 || !passkeysWork;
  }

  function showRecoveryCodes(codes, boxId) {
    const box = clear($(boxId || 'recovery-codes'));
    box.appendChild(el('div', { className: 'secret-box', role: 'status' }, [
      el('p', { text: 'Your recovery codes, shown this once. Keep them somewhere safe: each answers the second-factor step once, in place of the app or a passkey.' }),
      el('code', { className: 'secret', 'data-secret': 'recovery-codes', text: codes.join('\n') }),
    ]));
    box.hidden = false;
  }

  /** A passkey of the list: its name and dates, rename in place, and removal after a fresh factor check. */
  function passkeyRow(passkey) {
    const id = passkey.id;
    const error = el('p', { className: 'error', role: 'alert' });
    const nameInput = el('input', { id: 'passkey-rename-' + id, type: 'text', maxlength: '64', required: true, value: passkey.name });
    const renameForm = el('form', { className: 'inset rename', hidden: true, 'data-rename-passkey': id }, [
      el('label', { for: 'passkey-rename-' + id, text: 'New name' }),
      el('div', { className: 'row' }, [nameInput, el('button', { type: 'submit', className: 'small', text: 'Save name' })]),
    ]);
    const codeInput = el('input', { id: 'passkey-remove-code-' + id, type: 'text', autocomplete: 'one-time-code', autocapitalize: 'none', spellcheck: 'false', maxlength: '64', required: true });
    const removeForm = el('form', { className: 'inset', hidden: true, 'data-remove-passkey': id }, [
      el('p', { className: 'small-text', text: 'Removing a passkey needs your password and a second factor: a passkey (this one too), the authenticator’s code or a recovery code.' }),
      el('label', { for: 'passkey-remove-password-' + id, text: 'Current password' }),
      el('input', { id: 'passkey-remove-password-' + id, type: 'password', autocomplete: 'current-password', maxlength: '1024', required: true }),
      passkeyProofBox(),
      el('label', { for: 'passkey-remove-code-' + id, text: 'Authenticator code or recovery code' }),
      codeInput,
      el('div', { className: 'row' }, [el('button', { type: 'submit', className: 'danger small', text: 'Remove passkey' })]),
    ]);
    const submitting = (form, work) => form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const buttons = form.querySelectorAll('button');
      buttons.forEach((b) => { b.disabled = true; });
      error.textContent = '';
      try { await work(); } catch (failure) { error.textContent = describe(failure); } finally { buttons.forEach((b) => { b.disabled = false; }); }
    });
    submitting(renameForm, async () => {
      const renamed = await api('PATCH', '/api/v1/account/passkeys/' + encodeURIComponent(id), { name: nameInput.value.trim() });
      notice('Passkey renamed “' + renamed.name + '”.');
      await loadPasskeys();
    });
    const remove = async (proof) => {
      await api('DELETE', '/api/v1/account/passkeys/' + encodeURIComponent(id), Object.assign({ password: $('passkey-remove-password-' + id).value }, proof));
      notice('Passkey “' + passkey.name + '” removed.');
      await Promise.all([loadPasskeys(), loadMfa()]);
    };
    submitting(removeForm, () => remove(factorBody(codeInput.value)));
    onPasskeyProof(removeForm, codeInput, error, remove);
    const toggle = (show, hide) => () => { hide.hidden = true; show.hidden = !show.hidden; error.textContent = ''; if (!show.hidden) show.querySelector('input').focus(); };
    return el('div', { className: 'site', 'data-passkey': id }, [
      el('div', { className: 'site-head' }, [el('h4', { text: passkey.name })]),
      el('p', { className: 'small-text muted', text: 'Added ' + when(passkey.createdAt) + ' · last used ' + (passkey.lastUsedAt ? when(passkey.lastUsedAt) : 'never') }),
      el('div', { className: 'row' }, [
        el('button', { type: 'button', className: 'secondary small', 'data-rename': id, text: 'Rename', onclick: toggle(renameForm, removeForm) }),
        el('button', { type: 'button', className: 'secondary small', 'data-remove': id, text: 'Remove', onclick: toggle(removeForm, renameForm) }),
      ]),
      renameForm,
      removeForm,
      error,
    ]);
  }

  async function loadPasskeys() {
    const { passkeys } = await api('GET', '/api/v1/account/passkeys');
    const box = clear($('passkey-list'));
    if (passkeys.length === 0) box.appendChild(el('p', { className: 'muted', 'data-empty': 'passkeys', text: 'No passkey yet.' }));
    showPasskeyProofs(passkeys.length);
    for (const passkey of passkeys) box.appendChild(passkeyRow(passkey));
  }

  async function loadSessions() {
    const { sessions } = await api('GET', '/api/v1/auth/sessions');
    const mine = currentSessionId();
    const box = clear($('session-list'));
    const active = sessions.filter((s) => s.isActive);
    if (active.length === 0) box.appendChild(el('p', { className: 'muted', text: 'No active session.' }));
    for (const s of active) {
      const isThis = s.id === mine;
      box.appendChild(el('div', { className: 'site', 'data-session': s.id }, [
        // The device's name (the server reads the User-Agent); the raw header only when it names none.
        el('div', { className: 'site-head' }, [el('h3', { text: s.device || s.userAgent || 'Unknown device', title: s.userAgent }), isThis ? el('span', { className: 'badge new', text: 'this session' }) : null]),
        el('p', { className: 'small-text muted', text: 'Signed in ' + when(s.createdAt) + ' from ' + (s.ipAddress || 'an unknown address') + ' · last used ' + when(s.lastUsedAt) }),
        el('div', { className: 'row' }, [confirmButton('Revoke', isThis ? 'Sign out here?' : 'Revoke this session?', { 'data-revoke-session': s.id }, async () => {
          await api('DELETE', '/api/v1/auth/sessions/' + encodeURIComponent(s.id));
          if (isThis) return goToSignIn('This session was revoked.');
          notice('Session revoked.');
          await loadSessions();
        })]),
      ]));
    }
  }

  async function loadApps() {
    const { connectedApps } = await api('GET', '/api/v1/account/connected-apps');
    const box = clear($('app-list'));
    if (connectedApps.length === 0) box.appendChild(el('p', { className: 'muted', 'data-empty': 'apps', text: 'No app is connected.' }));
    for (const app of connectedApps) {
      box.appendChild(el('div', { className: 'site', 'data-app': app.clientId }, [
        el('div', { className: 'site-head' }, [el('h3', { text: app.clientName || app.clientId }), el('span', { className: 'muted small-text', text: '(the name the app gave itself)' })]),
        el('p', { className: 'small-text', text: 'Allowed: ' + app.scopes.join(', ') + ' · since ' + when(app.connectedAt) }),
        el('div', { className: 'row' }, [confirmButton('Disconnect', 'Disconnect this app?', { 'data-disconnect': app.clientId }, async () => {
          await api('DELETE', '/api/v1/account/connected-apps/' + encodeURIComponent(app.clientId));
          notice('“' + (app.clientName || app.clientId) + '” is disconnected.');
          await loadApps();
        })]),
      ]));
    }
  }

  /** A key's full secret, shown this once. */
  function showKeySecret(label, apiKey) {
    const box = clear($('key-secret'));
    box.appendChild(el('div', { className: 'secret-box', role: 'status' }, [
      el('p', { text: label }),
      el('div', { className: 'copy-row' }, [el('code', { className: 'secret', 'data-secret': 'api-key', text: apiKey }), copyButton(apiKey, 'api-key')]),
    ]));
  }

  function keyState(key) {
    if (key.revokedAt) return 'revoked ' + when(key.revokedAt);
    if (key.expiresAt && new Date(key.expiresAt).getTime() <= Date.now()) return 'expired ' + when(key.expiresAt);
    return (key.expiresAt ? 'expires ' + when(key.expiresAt) : 'does not expire') + ' · last used ' + when(key.lastUsedAt);
  }

  async function loadKeys() {
    const box = $('key-list');
    let keys;
    try {
      keys = (await api('GET', '/api/v1/auth/api-keys')).keys;
    } catch (error) {
      if (error.code !== 'SUBSCRIPTION_REQUIRED') throw error;
      $('key-form').hidden = true;
      clear(box).appendChild(el('p', { className: 'muted', 'data-empty': 'keys', text: 'API keys need API access: subscribe below (or hold beta access).' }));
      return;
    }
    $('key-form').hidden = false;
    clear(box);
    if (keys.length === 0) box.appendChild(el('p', { className: 'muted', 'data-empty': 'keys', text: 'No key yet.' }));
    for (const key of keys) {
      const live = !key.revokedAt;
      box.appendChild(el('div', { className: 'site', 'data-key': key.id }, [
        el('div', { className: 'site-head' }, [el('h3', { text: key.name }), el('code', { text: key.prefix + '…' })]),
        el('p', { className: 'small-text muted', text: 'Created ' + when(key.createdAt) + ' · ' + keyState(key) }),
        live ? el('div', { className: 'row' }, [
          confirmButton('Rotate', 'Rotate: the old secret stops?', { 'data-rotate': key.id }, async () => {
            const data = await api('POST', '/api/v1/auth/api-keys/' + encodeURIComponent(key.id) + '/rotate', {});
            showKeySecret('New secret of “' + key.name + '”, shown this once; the previous one no longer works:', data.apiKey);
            await loadKeys();
          }),
          confirmButton('Revoke', 'Revoke this key?', { 'data-revoke-key': key.id }, async () => {
            await api('DELETE', '/api/v1/auth/api-keys/' + encodeURIComponent(key.id));
            notice('Key “' + key.name + '” revoked.');
            await loadKeys();
          }),
        ]) : null,
      ]));
    }
  }

  async function loadSubscription() {
    const status = await api('GET', '/api/v1/billing/subscription');
    const sub = status.subscription;
    const state = clear($('subscription-state'));
    let words;
    if (sub.isBetaLifetime) words = 'Lifetime beta access: the API is yours, no subscription needed.';
    else if (sub.isActive && sub.cancelAtPeriodEnd) words = 'Active until ' + when(sub.currentPeriodEnd) + ', then cancelled.';
    else if (sub.isActive) words = 'Active (' + sub.status + '), renews ' + when(sub.currentPeriodEnd) + '.';
    else words = 'No API access (' + sub.status + '). The ' + status.planCode + ' plan is $' + status.monthlyPriceUsd + ' a month.';
    state.appendChild(el('span', { 'data-subscription-status': sub.status, text: words }));
    const actions = clear($('subscription-actions'));
    const action = (label, path, attrs, then) => el('button', Object.assign({ type: 'button', className: 'secondary', text: label }, attrs, {
      onclick: async (event) => {
        $('subscription-error').textContent = '';
        event.target.disabled = true;
        try { await then(await api('POST', path, {})); } catch (error) { $('subscription-error').textContent = describe(error); } finally { event.target.disabled = false; }
      },
    }));
    if (!sub.isActive && !sub.isBetaLifetime) {
      const checkout = action('Subscribe', '/api/v1/billing/checkout-session', { 'data-billing': 'checkout' }, (data) => location.assign(data.checkoutUrl));
      checkout.className = '';
      checkout.disabled = !status.checkoutEnabled;
      actions.appendChild(checkout);
      if (!status.checkoutEnabled) $('subscription-error').textContent = 'Subscribing is not available on this server.';
    }
    if (sub.providerCustomerId) actions.appendChild(action('Billing portal', '/api/v1/billing/portal-session', { 'data-billing': 'portal' }, (data) => location.assign(data.portalUrl)));
    if (sub.isActive && !sub.isBetaLifetime && !sub.cancelAtPeriodEnd) {
      actions.appendChild(confirmButton('Cancel subscription', 'Cancel at the period’s end?', { 'data-billing': 'cancel' }, async () => {
        await api('POST', '/api/v1/billing/subscription/cancel', {});
        notice('Your subscription ends at the end of the period.');
        await loadSubscription();
      }));
    }
    if (sub.isActive && sub.cancelAtPeriodEnd) {
      actions.appendChild(action('Keep subscription', '/api/v1/billing/subscription/reactivate', { 'data-billing': 'reactivate' }, async () => { notice('Your subscription continues.'); await loadSubscription(); }));
    }
  }

  const ACTIVITY_WORDS = {
    sign_in: 'Signed in', sign_in_failed: 'Failed sign-in', password_changed: 'Password changed', password_reset: 'Password reset',
    session_revoked: 'Session revoked', api_key_created: 'API key created', api_key_rotated: 'API key rotated', api_key_revoked: 'API key revoked',
    oauth_app_connected: 'App connected', oauth_app_disconnected: 'App disconnected', beta_granted: 'Beta access granted', beta_revoked: 'Beta access revoked',
    subscription_changed: 'Subscription changed', email_verified: 'E-mail address confirmed', email_change_requested: 'E-mail change asked',
    email_changed: 'E-mail address changed', email_reverted: 'E-mail address restored', mfa_enabled: 'Authenticator turned on',
    mfa_disabled: 'Authenticator turned off', mfa_challenge_failed: 'Wrong second-factor code', recovery_code_used: 'Recovery code used',
    recovery_codes_regenerated: 'New recovery codes',
  };
  let activityCursor = null;

  async function loadActivity(more) {
    const query = '?limit=20' + (more && activityCursor ? '&cursor=' + encodeURIComponent(activityCursor) : '');
    const page = await api('GET', '/api/v1/account/activity' + query);
    const body = more ? $('activity-list') : clear($('activity-list'));
    for (const entry of page.activity) {
      const detail = entry.details && (entry.details.clientName || entry.details.name);
      body.appendChild(el('tr', { 'data-activity': entry.type }, [
        el('td', { 'data-label': 'When', text: when(entry.createdAt) }),
        el('td', { 'data-label': 'What', text: (ACTIVITY_WORDS[entry.type] || entry.type.replace(/_/g, ' ')) + (typeof detail === 'string' ? ': ' + detail : '') }),
        el('td', { 'data-label': 'From', className: 'message', title: entry.userAgent, text: [entry.ipAddress, entry.device || entry.userAgent].filter(Boolean).join(' · ') || '—' }),
      ]));
    }
    activityCursor = page.nextCursor;
    $('more-activity').hidden = !activityCursor;
  }

  function centrePage() {
    if (!auth.get()) return goToSignIn('');
    $('sign-out').addEventListener('click', async () => {
      await request('/api/v1/auth/logout', 'POST', {}, auth.get().token).catch(() => {});
      goToSignIn('Signed out.');
    });
    $('resend-verification').addEventListener('click', async () => {
      try { notice((await api('POST', '/api/v1/auth/verify-email/resend', {})).message + '.'); } catch (error) { notice(describe(error), true); }
    });
    onSubmit('email-change-form', 'email-change-error', async () => {
      const email = $('email-change-new').value.trim();
      await api('POST', '/api/v1/account/email', { email, currentPassword: $('email-change-password').value });
      $('email-change-form').reset();
      sessionStorage.setItem(STORE + '-email-pending', JSON.stringify({ email, at: Date.now() }));
      showPendingEmail($('profile-email').textContent);
    });
    // The second factor of an account that has one: the typed code, or { passkey } from "Use a passkey".
    const changePassword = async (proof) => {
      const body = Object.assign({ currentPassword: $('current-password').value, newPassword: $('new-password').value, newPasswordConfirm: $('new-password-confirm').value }, proof);
      try {
        await api('POST', '/api/v1/auth/change-password', body);
      } catch (error) {
        if (error.code === 'MFA_CODE_REQUIRED') { $('password-code-field').hidden = false; $('password-code').focus(); }
        throw error;
      }
      goToSignIn('Your password is changed: sign in with the new one. Every session was signed out.');
    };
    onSubmit('password-form', 'password-error', () => changePassword(typedCode('password-code')));
    onPasskeyProof($('password-form'), $('password-code'), $('password-error'), changePassword);
    const deleteAccount = async (proof) => {
      const body = Object.assign({ password: $('delete-password').value, confirmText: $('delete-confirm').value }, proof);
      try {
        await api('DELETE', '/api/v1/account', body);
      } catch (error) {
        if (error.code === 'MFA_CODE_REQUIRED') { $('delete-code-field').hidden = false; $('delete-code').focus(); }
        throw error;
      }
      goToSignIn('Your account is deleted, with everything it held.');
    };
    onSubmit('delete-account-form', 'delete-account-error', () => deleteAccount(typedCode('delete-code')));
    onPasskeyProof($('delete-account-form'), $('delete-code'), $('delete-account-error'), deleteAccount);
    onSubmit('totp-start-form', 'totp-start-error', async () => {
      const enrolment = await api('POST', '/api/v1/account/mfa/totp', { password: $('totp-start-password').value });
      $('totp-start-form').reset();
      $('totp-start-form').hidden = true;
      $('totp-qr').src = enrolment.qrCodeDataUrl;
      $('totp-secret').textContent = enrolment.secret;
      $('totp-confirm-form').hidden = false;
      $('totp-code').focus();
    });
    onSubmit('totp-confirm-form', 'totp-confirm-error', async () => {
      const { recoveryCodes } = await api('POST', '/api/v1/account/mfa/totp/confirm', { code: $('totp-code').value.trim() });
      $('totp-confirm-form').reset();
      $('totp-confirm-form').hidden = true;
      showRecoveryCodes(recoveryCodes);
      notice('The authenticator app is on: sign-in now asks for its code.');
      await loadMfa();
    });
    onSubmit('totp-check-form', 'totp-check-error', async () => {
      await api('DELETE', '/api/v1/account/mfa/totp', factorBody($('check-code').value, { password: $('check-password').value }));
      $('totp-check-form').reset();
      $('recovery-codes').hidden = true;
      notice('The authenticator app is off.');
      await loadMfa();
    });
    $('recovery-regenerate').addEventListener('click', async () => {
      $('totp-check-error').textContent = '';
      if (!$('totp-check-form').reportValidity()) return;
      try {
        const { recoveryCodes } = await api('POST', '/api/v1/account/mfa/recovery-codes', factorBody($('check-code').value, { password: $('check-password').value }));
        $('totp-check-form').reset();
        showRecoveryCodes(recoveryCodes);
        await loadMfa();
      } catch (error) { $('totp-check-error').textContent = describe(error); }
    });
    if (!passkeysWork) {
      $('passkey-form').hidden = true;
      $('passkey-list').after(el('p', { className: 'muted small-text', text: 'This browser cannot create passkeys.' }));
    }
    onSubmit('passkey-form', 'passkey-error', async () => {
      const { options } = await api('POST', '/api/v1/account/passkey-options', { password: $('passkey-password').value });
      $('passkey-password').value = '';
      const credential = await passkeyCeremony(webauthn.startRegistration, options);
      const body = { credential };
      const name = $('passkey-name').value.trim();
      if (name) body.name = name;
      const data = await api('POST', '/api/v1/account/passkeys', body);
      $('passkey-form').reset();
      if (data.recoveryCodes) showRecoveryCodes(data.recoveryCodes, 'passkey-recovery-codes');
      notice('Passkey “' + data.passkey.name + '” added: sign in with it, no password needed.');
      await Promise.all([loadPasskeys(), loadMfa()]);
    });
    onSubmit('passkey-codes-form', 'passkey-codes-error', async () => {
      const passkey = await freshPasskeyProof();
      const { recoveryCodes } = await api('POST', '/api/v1/account/mfa/recovery-codes', { password: $('passkey-codes-password').value, passkey });
      $('passkey-codes-form').reset();
      showRecoveryCodes(recoveryCodes, 'passkey-recovery-codes');
      notice('New recovery codes: the earlier ones stopped working.');
      await loadMfa();
    });
    onSubmit('key-form', 'key-error', async () => {
      const body = { name: $('key-name').value.trim() };
      const days = $('key-days').value.trim();
      if (days) body.expiresInDays = Number(days);
      const data = await api('POST', '/api/v1/auth/api-keys', body);
      $('key-form').reset();
      showKeySecret('Your new key “' + data.key.name + '”, shown this once: copy it now.', data.apiKey);
      await loadKeys();
    });
    $('more-activity').addEventListener('click', () => loadActivity(true).catch((error) => notice(describe(error), true)));
    const checkout = new URLSearchParams(location.search).get('checkout');
    if (checkout) window.history.replaceState(null, '', location.pathname + location.hash);
    notice(takeNotice() || (checkout === 'success' ? 'Thank you: API access starts as soon as the payment is confirmed.' : checkout === 'cancel' ? 'Checkout cancelled: nothing was charged.' : ''));
    // The account's webhook endpoints (its todo events): the panel is libs/common's (window.WebhookPanel).
    const webhooks = window.WebhookPanel.mount({ api, base: () => '/api/v1/webhooks', refusals: { SUBSCRIPTION_REQUIRED: 'Webhooks need API access: subscribe below (or hold beta access).' } });
    const loads = [loadProfile(), loadMfa(), loadPasskeys(), loadSessions(), loadApps(), loadKeys(), webhooks.load(), loadSubscription(), loadActivity(false)];
    return Promise.all(loads.map((load) => load.catch((error) => { if (auth.get()) notice(describe(error), true); })));
  }

  const PAGES = { signIn: signInPage, signUp: signUpPage, verifyEmail: verifyEmailPage, forgotPassword: resetPages, resetPassword: resetPages, centre: centrePage };
  Promise.resolve(PAGES[PAGE] && PAGES[PAGE]()).finally(() => document.body.setAttribute('data-ready', 'true'));
})();
