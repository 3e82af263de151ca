/* Feedback widget: dependency-free. Embed: <script src="…/widget.js" data-site-key="site_…" async></script>
   Options (attributes, or later window.FeedbackWidget.configure({...})): data-accent="#0a7d4f", data-position="bottom-left",
   data-label="Ideas?", data-lang="en|de", data-theme="light|dark|auto", data-user-token="JWT".
   API: FeedbackWidget.open(), .close(), .configure(), .identify(token). */
(function () {
  'use strict';
  // ES5 on purpose: it runs on customers' pages, in whatever browsers their visitors have.
  // Rendered in a shadow root (page styles stay out), every text set with textContent, and the
  // same bytes for every site: it posts to the origin it was loaded from.
  var script = document.currentScript;
  if (!script || window.__feedbackWidgetLoaded) return;
  var siteKey = script.getAttribute('data-site-key');
  if (!siteKey) { if (window.console) console.warn('feedback widget: data-site-key is missing'); return; }
  window.__feedbackWidgetLoaded = true;
  var endpoint = new URL('/api/v1/widget/feedback', script.src).href;
  var uid = 'fw' + Math.random().toString(36).slice(2, 8);

  // Every visible string, per language (the type labels match the dashboard's: Feedback, Idea, Bug).
  var STRINGS = {
    en: { open: 'Feedback', title: 'Send feedback', sub: 'Tell us what works and what does not.', close: 'Close', about: 'What is it about?',
      types: ['Feedback', 'Idea', 'Bug'], message: 'Message', placeholder: 'Your message', rating: 'Rating ', optional: '(optional)',
      of5: ' of 5', star: ' star', stars: ' stars', send: 'Send', sending: 'Sending…', empty: 'Please write a message.',
      thanks: 'Thank you!', sent: 'Your feedback was sent.', thanksLine: 'Thank you for your feedback!', failed: 'Sending failed; please try again later.' },
    de: { open: 'Feedback', title: 'Feedback senden', sub: 'Sagen Sie uns, was gut ist und was nicht.', close: 'Schließen', about: 'Worum geht es?',
      types: ['Feedback', 'Idee', 'Fehler'], message: 'Nachricht', placeholder: 'Ihre Nachricht', rating: 'Bewertung ', optional: '(optional)',
      of5: ' von 5', star: ' Stern', stars: ' Sterne', send: 'Senden', sending: 'Wird gesendet…', empty: 'Bitte schreiben Sie eine Nachricht.',
      thanks: 'Vielen Dank!', sent: 'Ihr Feedback wurde gesendet.', thanksLine: 'Vielen Dank für Ihr Feedback!', failed: 'Senden fehlgeschlagen; bitte später erneut versuchen.' }
  };
  var opts = {};
  function option(name, value) {
    if (value == null) return;
    value = String(value);
    if (name === 'accent' && /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(value)) opts.accent = value;
    if (name === 'position' && /^bottom-(left|right)$/.test(value)) opts.position = value;
    if (name === 'label' && /\S/.test(value)) opts.label = value.slice(0, 40);
    if (name === 'lang' && STRINGS[value]) opts.lang = value;
    if (name === 'theme' && /^(light|dark|auto)$/.test(value)) opts.theme = value;
  }
  var NAMES = ['accent', 'position', 'label', 'lang', 'theme'];
  for (var o = 0; o < NAMES.length; o++) option(NAMES[o], script.getAttribute('data-' + NAMES[o]));
  var L = STRINGS[opts.lang || 'en'];
  // The reporter as the host's server signed it (README)
  var userToken = script.getAttribute('data-user-token') || null;

  /** The reporter's browser in a few words: never cookies, storage or the page's content. */
  function reporterContext() {
    var ua = navigator.userAgent || '', m, context = {};
    m = /(Edg|OPR|Firefox|Chrome|CriOS|FxiOS)\/(\d+)/.exec(ua) || /Version\/(\d+)[\s\S]*Safari/.exec(ua);
    if (m) context.browser = m.length > 2 ? ({ Edg: 'Edge', OPR: 'Opera', CriOS: 'Chrome', FxiOS: 'Firefox' }[m[1]] || m[1]) + ' ' + m[2] : 'Safari ' + m[1];
    m = /Android (\d+)|(?:iPhone|CPU) OS (\d+)|Mac OS X (\d+)|Windows NT (\d+)|(CrOS)|(Linux)/.exec(ua);
    if (m) context.os = m[1] ? 'Android ' + m[1] : m[2] ? 'iOS ' + m[2] : m[3] ? 'macOS ' + m[3] : m[4] ? 'Windows ' + (m[4] === '10' ? '10/11' : m[4]) : m[5] ? 'ChromeOS' : 'Linux';
    context.viewport = Math.round(window.innerWidth) + 'x' + Math.round(window.innerHeight);
    if (/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8}){0,4}$/.test(navigator.language || '')) context.language = navigator.language;
    m = /^(https?:\/\/[^\s/?#]+[^\s?#]*)/i.exec(document.referrer || '');
    if (m) context.referrer = m[1].slice(0, 2048);
    return context;
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    for (var name in attrs) if (Object.prototype.hasOwnProperty.call(attrs, name)) node.setAttribute(name, attrs[name]);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function add(parent) { for (var i = 1; i < arguments.length; i++) parent.appendChild(arguments[i]); return parent; }

  var CSS = [
    ':host{all:initial}',
    '.fw{--a:#1f4fd8;--bg:#fff;--ink:#1c2430;--mu:#5b6675;--ln:#c9d2de;--hv:#eef1f5;--er:#b3261e;position:fixed;right:20px;bottom:20px;z-index:2147483000;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);-webkit-font-smoothing:antialiased}',
    '.fw.left{right:auto;left:20px}.fw.left .panel{right:auto;left:0}.fw.left .pill{margin-left:0}',
    '.fw.dark{--bg:#1b2230;--ink:#e8edf4;--mu:#a9b4c3;--ln:#3a4558;--hv:#2a3342;--er:#ff8a80}',
    '@media (prefers-color-scheme:dark){.fw.auto{--bg:#1b2230;--ink:#e8edf4;--mu:#a9b4c3;--ln:#3a4558;--hv:#2a3342;--er:#ff8a80}}',
    '.fw *{box-sizing:border-box;-webkit-tap-highlight-color:transparent}',
    ':where(.fw) :where(button,textarea,input){font:inherit;color:inherit}',
    '.pill{display:flex;align-items:center;gap:8px;margin-left:auto;background:var(--a);color:#fff;border:0;border-radius:999px;padding:10px 18px;cursor:pointer;font-weight:600;box-shadow:0 4px 14px rgba(20,40,110,.3)}',
    '.pill:hover,.send:hover{filter:brightness(.9)}',
    '.pill svg{width:18px;height:18px;fill:currentColor}',
    'button:focus-visible,input:focus-visible+label,textarea:focus{outline:3px solid #9cb8f0;outline-offset:2px}',
    '.panel{position:absolute;right:0;bottom:60px;width:340px;max-height:calc(100vh - 100px);overflow:auto;background:var(--bg);border:1px solid var(--ln);border-radius:16px;padding:18px;box-shadow:0 12px 40px rgba(15,30,60,.22)}',
    '.panel[hidden],.done[hidden],.body[hidden]{display:none}',
    '.head{display:flex;align-items:flex-start;justify-content:space-between;gap:8px;margin-bottom:10px}',
    'h2{margin:0;font-size:17px;font-weight:700;line-height:1.3}',
    'h2:focus{outline:none}',
    '.sub{margin:2px 0 0;color:var(--mu);font-size:13px}',
    '.x{border:0;background:transparent;border-radius:8px;width:32px;height:32px;margin:-6px -6px 0 0;cursor:pointer;font-size:22px;line-height:1;color:var(--mu)}',
    '.x:hover{background:var(--hv)}',
    'fieldset{border:0;margin:0 0 12px;padding:0;min-width:0}',
    'legend,.lbl{display:block;padding:0;margin:0 0 6px;font-weight:600;font-size:13px}',
    '.opt{color:var(--mu);font-weight:400}',
    '.chips{display:flex;gap:6px;flex-wrap:wrap}',
    '.sr{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}',
    '.chips label{display:inline-block;padding:6px 12px;border:1px solid var(--ln);border-radius:999px;cursor:pointer;background:var(--bg);color:var(--ink);user-select:none}',
    '.chips input:checked+label{background:var(--a);border-color:var(--a);color:#fff}',
    '.chips label:hover{border-color:var(--a)}',
    'textarea{display:block;width:100%;min-height:96px;resize:vertical;margin:0 0 12px;padding:10px 12px;border:1px solid var(--ln);border-radius:10px;background:var(--bg)}',
    'textarea:focus{border-color:var(--a);outline-offset:0}',
    '.stars{display:flex;gap:2px}',
    '.stars label{cursor:pointer;font-size:26px;line-height:1;padding:2px 3px;border-radius:6px;color:var(--ln);user-select:none}',
    '.stars label.on{color:#f2a900}',
    '.stars label:hover{color:#f2a900}',
    '.foot{display:flex;align-items:center;justify-content:space-between;gap:10px;margin-top:14px}',
    '.status{margin:0;font-size:13px;color:var(--mu);min-height:1.2em;flex:1}',
    '.status.err{color:var(--er)}',
    '.send{background:var(--a);color:#fff;border:0;border-radius:999px;padding:9px 20px;font-weight:600;cursor:pointer}',
    '.send:disabled{opacity:.6;cursor:default}',
    '.done{text-align:center;padding:14px 4px 4px}',
    '.done p{margin:6px 0 14px;color:var(--mu)}',
    '.check{display:inline-flex;align-items:center;justify-content:center;width:44px;height:44px;border-radius:50%;background:#e3f3ea;color:#1d7a46;font-size:24px}',
    '@media (max-width:480px){.fw,.fw.left{right:12px;bottom:12px;left:12px}.panel{position:fixed;left:8px;right:8px;bottom:8px;width:auto;max-height:calc(100vh - 16px);border-radius:18px}}',
    '@media (prefers-reduced-motion:no-preference){.panel{animation:fw-in .16s ease-out}@keyframes fw-in{from{opacity:0;transform:translateY(8px)}}}'
  ].join('');

  var host = el('div', { 'data-feedback-widget': '' });
  var root = host.attachShadow ? host.attachShadow({ mode: 'open' }) : host;
  add(root, el('style', {}, CSS));

  var wrap = el('div', { 'class': 'fw' });
  var pill = el('button', { type: 'button', 'class': 'pill', 'aria-expanded': 'false', 'aria-controls': uid + '-panel', 'data-fw': 'open' });
  var icon = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  icon.setAttribute('viewBox', '0 0 24 24');
  icon.setAttribute('aria-hidden', 'true');
  var path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', 'M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2h-9l-5 4v-4H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z');
  var pillText = el('span', {}, opts.label || L.open);
  add(pill, add(icon, path), pillText);

  var panel = el('div', { 'class': 'panel', id: uid + '-panel', role: 'dialog', 'aria-modal': 'false', 'aria-labelledby': uid + '-title', hidden: '', 'data-fw': 'panel' });
  var close = el('button', { type: 'button', 'class': 'x', 'aria-label': L.close, 'data-fw': 'close' }, '×');
  add(panel, add(el('div', { 'class': 'head' }), add(el('div'), el('h2', { id: uid + '-title' }, L.title), el('p', { 'class': 'sub' }, L.sub)), close));

  var form = el('form', { 'class': 'body', novalidate: '', 'data-fw': 'form' });
  var types = el('div', { 'class': 'chips' });
  var TYPES = [['feedback', L.types[0]], ['feature_request', L.types[1]], ['bug', L.types[2]]];
  for (var t = 0; t < TYPES.length; t++) {
    var id = uid + '-type-' + t;
    var radio = el('input', { type: 'radio', name: 'type', value: TYPES[t][0], id: id, 'class': 'sr' });
    if (t === 0) radio.checked = radio.defaultChecked = true; // defaultChecked: form.reset() after a send keeps a type chosen
    add(types, radio, el('label', { 'for': id, 'data-fw': 'type-' + TYPES[t][0] }, TYPES[t][1]));
  }
  add(form, add(el('fieldset'), el('legend', {}, L.about), types));

  var message = el('textarea', { id: uid + '-message', name: 'message', maxlength: '5000', required: '', placeholder: L.placeholder, 'aria-describedby': uid + '-status', 'data-fw': 'message' });
  add(form, el('label', { 'for': uid + '-message', 'class': 'lbl' }, L.message), message);

  var stars = el('div', { 'class': 'stars' });
  var rating = 0;
  var starLabels = [];
  for (var s = 1; s <= 5; s++) {
    var starId = uid + '-star-' + s;
    var star = el('input', { type: 'radio', name: 'rating', value: String(s), id: starId, 'class': 'sr' });
    var label = el('label', { 'for': starId, title: s + L.of5, 'data-fw': 'rating-' + s }, '★');
    add(label, el('span', { 'class': 'sr' }, s + (s === 1 ? L.star : L.stars)));
    starLabels.push(label);
    add(stars, star, label);
  }
  function paintStars(upTo) { for (var i = 0; i < starLabels.length; i++) starLabels[i].className = i < upTo ? 'on' : ''; }
  stars.addEventListener('change', function (event) { rating = Number(event.target.value); paintStars(rating); });
  // Choosing the chosen star again clears the (optional) rating.
  stars.addEventListener('click', function (event) {
    var input = event.target.tagName === 'INPUT' ? event.target : null;
    if (input && Number(input.value) === rating && input.getAttribute('data-was') === 'on') { input.checked = false; rating = 0; paintStars(0); }
    for (var i = 0; i < stars.children.length; i++) if (stars.children[i].tagName === 'INPUT') stars.children[i].setAttribute('data-was', stars.children[i].checked ? 'on' : '');
  });
  add(form, add(el('fieldset'), add(el('legend'), document.createTextNode(L.rating), el('span', { 'class': 'opt' }, L.optional)), stars));

  var status = el('p', { 'class': 'status', id: uid + '-status', role: 'status', 'aria-live': 'polite', 'data-fw': 'status' });
  var send = el('button', { type: 'submit', 'class': 'send', 'data-fw': 'send' }, L.send);
  add(form, add(el('div', { 'class': 'foot' }), status, send));

  var done = el('div', { 'class': 'done', hidden: '', 'data-fw': 'done' });
  var again = el('button', { type: 'button', 'class': 'send', 'data-fw': 'again' }, L.close);
  add(done, el('span', { 'class': 'check', 'aria-hidden': 'true' }, '✓'), el('h2', { tabindex: '-1' }, L.thanks), el('p', {}, L.sent), again);
  add(panel, form, done);
  add(wrap, panel, pill);
  add(root, wrap);

  function toggle(show) {
    if (show) panel.removeAttribute('hidden'); else panel.setAttribute('hidden', '');
    pill.setAttribute('aria-expanded', show ? 'true' : 'false');
    if (show) {
      form.removeAttribute('hidden');
      done.setAttribute('hidden', '');
      types.querySelector('input:checked').focus();
    } else {
      pill.focus();
    }
  }
  pill.addEventListener('click', function () { toggle(panel.hasAttribute('hidden')); });
  close.addEventListener('click', function () { toggle(false); });
  again.addEventListener('click', function () { toggle(false); });
  root.addEventListener('keydown', function (event) {
    if ((event.key === 'Escape' || event.key === 'Esc') && !panel.hasAttribute('hidden')) { event.stopPropagation(); toggle(false); }
  });

  function say(text, isError) { status.textContent = text; status.className = 'status' + (isError ? ' err' : ''); }

  // A key per submission; a resend after a failure reuses it
  var pending = null;
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var text = message.value;
    if (!/\S/.test(text)) { say(L.empty, true); message.focus(); return; }
    send.disabled = true;
    say(L.sending);
    var body = {
      siteKey: siteKey,
      type: form.querySelector('input[name=type]:checked').value,
      message: text.slice(0, 5000),
      rating: rating || null,
      pageUrl: String(location.href).slice(0, 2048)
    };
    // The key follows what the reporter wrote; a resize between the attempts does not make it a new submission.
    var same = JSON.stringify(body), c = window.crypto, headers = { 'Content-Type': 'application/json' };
    if (!pending || pending.same !== same) pending = { same: same, key: c && c.randomUUID ? c.randomUUID() : '', context: reporterContext() };
    body.reporterContext = pending.context;
    if (userToken) body.userToken = userToken;
    var json = JSON.stringify(body);
    if (pending.key) headers['Idempotency-Key'] = pending.key;
    fetch(endpoint, { method: 'POST', headers: headers, body: json, credentials: 'omit' })
      .then(function (response) {
        return response.json().catch(function () { return null; }).then(function (payload) {
          if (response.ok && payload && payload.success) {
            pending = null;
            say(L.thanksLine);
            form.reset();
            rating = 0;
            paintStars(0);
            form.setAttribute('hidden', '');
            done.removeAttribute('hidden');
            done.querySelector('h2').focus();
          } else {
            say((payload && payload.error && payload.error.message) || L.failed, true);
          }
        });
      })
      .catch(function () { say(L.failed, true); })
      .then(function () { send.disabled = false; });
  });

  /** Applies the options that only change looks (language is read once, at load). */
  function paint() {
    wrap.className = 'fw ' + (opts.theme || 'light') + (opts.position === 'bottom-left' ? ' left' : '');
    wrap.style.setProperty('--a', opts.accent || '#1f4fd8');
    pillText.textContent = opts.label || L.open;
  }
  paint();
  window.FeedbackWidget = {
    open: function () { if (panel.hasAttribute('hidden')) toggle(true); },
    close: function () { if (!panel.hasAttribute('hidden')) toggle(false); },
    /** accent, position, label, theme: as the data-* attributes. */
    configure: function (settings) { for (var k in settings) if (k !== 'lang' && Object.prototype.hasOwnProperty.call(settings, k)) option(k, settings[k]); paint(); },
    identify: function (token) { userToken = token ? String(token) : null; }
  };

  function mount() { document.body.appendChild(host); }
  if (document.body) mount(); else document.addEventListener('DOMContentLoaded', mount);
})();
