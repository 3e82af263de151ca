/* Feedback widget: dependency-free. Embed: <script src="…/widget.js" data-site-key="site_…" async></script> */
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

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    for (var name in attrs) if (Object.prototype.hasOwnProperty.call(attrs, name)) node.setAttribute(name, attrs[name]);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function add(parent) { for (var i = 1; i < arguments.length; i++) parent.appendChild(arguments[i]); return parent; }

  var CSS = [
    ':host{all:initial}',
    '.fw{position:fixed;right:20px;bottom:20px;z-index:2147483000;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1c2430;-webkit-font-smoothing:antialiased}',
    '.fw *{box-sizing:border-box;-webkit-tap-highlight-color:transparent}',
    ':where(.fw) :where(button,textarea,input){font:inherit;color:inherit}',
    '.pill{display:flex;align-items:center;gap:8px;margin-left:auto;background:#1f4fd8;color:#fff;border:0;border-radius:999px;padding:10px 18px;cursor:pointer;font-weight:600;box-shadow:0 4px 14px rgba(20,40,110,.3)}',
    '.pill:hover,.send:hover{background:#1a43b8}',
    '.pill svg{width:18px;height:18px;fill:currentColor}',
    'button:focus-visible,input:focus-visible+label,textarea:focus{outline:3px solid #9cb8f0;outline-offset:2px}',
    '.panel{position:absolute;right:0;bottom:60px;width:340px;max-height:calc(100vh - 100px);overflow:auto;background:#fff;border:1px solid #dde3ec;border-radius:16px;padding:18px;box-shadow:0 12px 40px rgba(15,30,60,.22)}',
    '.panel[hidden],.done[hidden],.body[hidden]{display:none}',
    '.head{display:flex;align-items:flex-start;justify-content:space-between;gap:8px;margin-bottom:10px}',
    'h2{margin:0;font-size:17px;font-weight:700;line-height:1.3}',
    'h2:focus{outline:none}',
    '.sub{margin:2px 0 0;color:#5b6675;font-size:13px}',
    '.x{border:0;background:transparent;border-radius:8px;width:32px;height:32px;margin:-6px -6px 0 0;cursor:pointer;font-size:22px;line-height:1;color:#5b6675}',
    '.x:hover{background:#eef1f5}',
    'fieldset{border:0;margin:0 0 12px;padding:0;min-width:0}',
    'legend,.lbl{display:block;padding:0;margin:0 0 6px;font-weight:600;font-size:13px}',
    '.opt{color:#5b6675;font-weight:400}',
    '.chips{display:flex;gap:6px;flex-wrap:wrap}',
    '.sr{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}',
    '.chips label{display:inline-block;padding:6px 12px;border:1px solid #c9d2de;border-radius:999px;cursor:pointer;background:#fff;color:#33404f;user-select:none}',
    '.chips input:checked+label{background:#1f4fd8;border-color:#1f4fd8;color:#fff}',
    '.chips label:hover{border-color:#1f4fd8}',
    'textarea{display:block;width:100%;min-height:96px;resize:vertical;margin:0 0 12px;padding:10px 12px;border:1px solid #c9d2de;border-radius:10px;background:#fff}',
    'textarea:focus{border-color:#1f4fd8;outline-offset:0}',
    '.stars{display:flex;gap:2px}',
    '.stars label{cursor:pointer;font-size:26px;line-height:1;padding:2px 3px;border-radius:6px;color:#c9d2de;user-select:none}',
    '.stars label.on{color:#f2a900}',
    '.stars label:hover{color:#f2a900}',
    '.foot{display:flex;align-items:center;justify-content:space-between;gap:10px;margin-top:14px}',
    '.status{margin:0;font-size:13px;color:#5b6675;min-height:1.2em;flex:1}',
    '.status.err{color:#b3261e}',
    '.send{background:#1f4fd8;color:#fff;border:0;border-radius:999px;padding:9px 20px;font-weight:600;cursor:pointer}',
    '.send:disabled{opacity:.6;cursor:default}',
    '.done{text-align:center;padding:14px 4px 4px}',
    '.done p{margin:6px 0 14px;color:#5b6675}',
    '.check{display:inline-flex;align-items:center;justify-content:center;width:44px;height:44px;border-radius:50%;background:#e3f3ea;color:#1d7a46;font-size:24px}',
    '@media (max-width:480px){.fw{right:12px;bottom:12px;left:12px}.panel{position:fixed;left:8px;right:8px;bottom:8px;width:auto;max-height:calc(100vh - 16px);border-radius:18px}}',
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
  add(pill, add(icon, path), el('span', {}, 'Feedback'));

  var panel = el('div', { 'class': 'panel', id: uid + '-panel', role: 'dialog', 'aria-modal': 'false', 'aria-labelledby': uid + '-title', hidden: '', 'data-fw': 'panel' });
  var close = el('button', { type: 'button', 'class': 'x', 'aria-label': 'Close', 'data-fw': 'close' }, '×');
  add(panel, add(el('div', { 'class': 'head' }), add(el('div'), el('h2', { id: uid + '-title' }, 'Send feedback'), el('p', { 'class': 'sub' }, 'Tell us what works and what does not.')), close));

  var form = el('form', { 'class': 'body', novalidate: '', 'data-fw': 'form' });
  var types = el('div', { 'class': 'chips' });
  var TYPES = [['feedback', 'Feedback'], ['feature_request', 'Idea'], ['bug', 'Bug']];
  for (var t = 0; t < TYPES.length; t++) {
    var id = uid + '-type-' + t;
    var radio = el('input', { type: 'radio', name: 'type', value: TYPES[t][0], id: id, 'class': 'sr' });
    if (t === 0) radio.checked = true;
    add(types, radio, el('label', { 'for': id, 'data-fw': 'type-' + TYPES[t][0] }, TYPES[t][1]));
  }
  add(form, add(el('fieldset'), el('legend', {}, 'What is it about?'), types));

  var message = el('textarea', { id: uid + '-message', name: 'message', maxlength: '5000', required: '', placeholder: 'Your message', 'aria-describedby': uid + '-status', 'data-fw': 'message' });
  add(form, el('label', { 'for': uid + '-message', 'class': 'lbl' }, 'Message'), message);

  var stars = el('div', { 'class': 'stars' });
  var rating = 0;
  var starLabels = [];
  for (var s = 1; s <= 5; s++) {
    var starId = uid + '-star-' + s;
    var star = el('input', { type: 'radio', name: 'rating', value: String(s), id: starId, 'class': 'sr' });
    var label = el('label', { 'for': starId, title: s + ' of 5', 'data-fw': 'rating-' + s }, '★');
    add(label, el('span', { 'class': 'sr' }, s + (s === 1 ? ' star' : ' stars')));
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
  add(form, add(el('fieldset'), add(el('legend'), document.createTextNode('Rating '), el('span', { 'class': 'opt' }, '(optional)')), stars));

  var status = el('p', { 'class': 'status', id: uid + '-status', role: 'status', 'aria-live': 'polite', 'data-fw': 'status' });
  var send = el('button', { type: 'submit', 'class': 'send', 'data-fw': 'send' }, 'Send');
  add(form, add(el('div', { 'class': 'foot' }), status, send));

  var done = el('div', { 'class': 'done', hidden: '', 'data-fw': 'done' });
  var again = el('button', { type: 'button', 'class': 'send', 'data-fw': 'again' }, 'Close');
  add(done, el('span', { 'class': 'check', 'aria-hidden': 'true' }, '✓'), el('h2', { tabindex: '-1' }, 'Thank you!'), el('p', {}, 'Your feedback was sent.'), again);
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
    if (!/\S/.test(text)) { say('Please write a message.', true); message.focus(); return; }
    send.disabled = true;
    say('Sending…');
    var body = {
      siteKey: siteKey,
      type: form.querySelector('input[name=type]:checked').value,
      message: text.slice(0, 5000),
      rating: rating || null,
      pageUrl: String(location.href).slice(0, 2048)
    };
    var json = JSON.stringify(body), c = window.crypto, headers = { 'Content-Type': 'application/json' };
    if (!pending || pending.json !== json) pending = { json: json, key: c && c.randomUUID ? c.randomUUID() : '' };
    if (pending.key) headers['Idempotency-Key'] = pending.key;
    fetch(endpoint, { method: 'POST', headers: headers, body: json, credentials: 'omit' })
      .then(function (response) {
        return response.json().catch(function () { return null; }).then(function (payload) {
          if (response.ok && payload && payload.success) {
            pending = null;
            say('Thank you for your feedback!');
            form.reset();
            rating = 0;
            paintStars(0);
            form.setAttribute('hidden', '');
            done.removeAttribute('hidden');
            done.querySelector('h2').focus();
          } else {
            say((payload && payload.error && payload.error.message) || 'Sending failed; please try again later.', true);
          }
        });
      })
      .catch(function () { say('Sending failed; please try again later.', true); })
      .then(function () { send.disabled = false; });
  });

  function mount() { document.body.appendChild(host); }
  if (document.body) mount(); else document.addEventListener('DOMContentLoaded', mount);
})();
