/**
 * The embeddable widget, served as /widget.js. Dependency-free; embed with
 *   <script src="https://feedback.example.com/widget.js" data-site-key="site_..." async></script>
 * It renders in a shadow root (page styles do not leak in), writes every text with
 * textContent (nothing is ever parsed as HTML), and posts to the origin it was loaded from.
 * No server value is interpolated: the same bytes are served to every site.
 */
export const WIDGET_SCRIPT = String.raw`/* Feedback widget: dependency-free, see /api/docs */
(function () {
  'use strict';
  var script = document.currentScript;
  if (!script || window.__feedbackWidgetLoaded) return;
  var siteKey = script.getAttribute('data-site-key');
  if (!siteKey) { if (window.console) console.warn('feedback widget: data-site-key is missing'); return; }
  window.__feedbackWidgetLoaded = true;
  var endpoint = new URL('/api/v1/widget/feedback', script.src).href;

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    for (var name in attrs) if (Object.prototype.hasOwnProperty.call(attrs, name)) node.setAttribute(name, attrs[name]);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function option(value, label) { return el('option', { value: value }, label); }

  var host = el('div', { 'data-feedback-widget': '' });
  var root = host.attachShadow ? host.attachShadow({ mode: 'open' }) : host;
  root.appendChild(el('style', {}, [
    ':host{all:initial}',
    '.fw{position:fixed;right:16px;bottom:16px;z-index:2147483000;font:14px/1.4 system-ui,sans-serif;color:#111}',
    '.fw-open{background:#1f4fd8;color:#fff;border:0;border-radius:20px;padding:8px 16px;cursor:pointer;box-shadow:0 2px 8px rgba(0,0,0,.25)}',
    '.fw-panel{position:absolute;right:0;bottom:48px;width:300px;background:#fff;border:1px solid #ccd;border-radius:8px;padding:12px;box-shadow:0 4px 16px rgba(0,0,0,.2)}',
    '.fw-panel[hidden]{display:none}',
    '.fw label{display:block;margin:6px 0 2px;font-weight:600}',
    '.fw select,.fw textarea{width:100%;box-sizing:border-box;font:inherit}',
    '.fw textarea{min-height:90px;resize:vertical}',
    '.fw-actions{display:flex;gap:8px;justify-content:flex-end;margin-top:8px}',
    '.fw-status{min-height:1.4em;margin:6px 0 0}'
  ].join('\n')));

  var wrap = el('div', { 'class': 'fw' });
  var open = el('button', { type: 'button', 'class': 'fw-open', 'aria-expanded': 'false', 'data-fw': 'open' }, 'Feedback');
  var form = el('form', { 'class': 'fw-panel', hidden: '', 'aria-label': 'Send feedback', 'data-fw': 'form' });
  var type = el('select', { id: 'fw-type', name: 'type', 'data-fw': 'type' });
  type.appendChild(option('feedback', 'Feedback'));
  type.appendChild(option('feature_request', 'Feature request'));
  type.appendChild(option('bug', 'Bug'));
  var message = el('textarea', { id: 'fw-message', name: 'message', maxlength: '5000', required: '', 'data-fw': 'message' });
  var rating = el('select', { id: 'fw-rating', name: 'rating', 'data-fw': 'rating' });
  rating.appendChild(option('', 'No rating'));
  for (var r = 1; r <= 5; r++) rating.appendChild(option(String(r), r + ' / 5'));
  var status = el('p', { 'class': 'fw-status', role: 'status', 'aria-live': 'polite', 'data-fw': 'status' });
  var send = el('button', { type: 'submit', 'data-fw': 'send' }, 'Send');
  var close = el('button', { type: 'button', 'data-fw': 'close' }, 'Close');
  var actions = el('div', { 'class': 'fw-actions' });
  actions.appendChild(close);
  actions.appendChild(send);
  form.appendChild(el('label', { 'for': 'fw-type' }, 'Type'));
  form.appendChild(type);
  form.appendChild(el('label', { 'for': 'fw-message' }, 'Message'));
  form.appendChild(message);
  form.appendChild(el('label', { 'for': 'fw-rating' }, 'Rating (optional)'));
  form.appendChild(rating);
  form.appendChild(actions);
  form.appendChild(status);
  wrap.appendChild(form);
  wrap.appendChild(open);
  root.appendChild(wrap);

  function toggle(show) {
    if (show) form.removeAttribute('hidden'); else form.setAttribute('hidden', '');
    open.setAttribute('aria-expanded', show ? 'true' : 'false');
    if (show) message.focus();
  }
  open.addEventListener('click', function () { toggle(form.hasAttribute('hidden')); });
  close.addEventListener('click', function () { toggle(false); });

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var text = message.value;
    if (!/\S/.test(text)) { status.textContent = 'Please write a message.'; return; }
    send.disabled = true;
    status.textContent = 'Sending…';
    var body = {
      siteKey: siteKey,
      type: type.value,
      message: text.slice(0, 5000),
      rating: rating.value ? Number(rating.value) : null,
      pageUrl: String(location.href).slice(0, 2048)
    };
    fetch(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), credentials: 'omit' })
      .then(function (response) {
        return response.json().catch(function () { return null; }).then(function (payload) {
          if (response.ok && payload && payload.success) {
            status.textContent = 'Thank you for your feedback!';
            message.value = '';
            rating.value = '';
          } else {
            status.textContent = (payload && payload.error && payload.error.message) || 'Sending failed; please try again later.';
          }
        });
      })
      .catch(function () { status.textContent = 'Sending failed; please try again later.'; })
      .then(function () { send.disabled = false; });
  });

  function mount() { document.body.appendChild(host); }
  if (document.body) mount(); else document.addEventListener('DOMContentLoaded', mount);
})();
`;
