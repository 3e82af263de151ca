/*
 * The share page's script (served as /assets/share.js; plain browser JavaScript, no build step).
 * It autosaves each answer after a pause in typing and on leaving the field, one save in flight
 * per question (a slow earlier save can never overwrite a later one), and submits after every
 * pending save is done.
 */
(function () {
  'use strict';
  var token = location.pathname.split('/').filter(Boolean).pop();
  var api = '/api/v1/share/' + encodeURIComponent(token);
  var form = document.getElementById('answers');
  var formStatus = document.getElementById('form-status');
  var state = {};

  function fmt(iso) { return new Date(iso).toISOString().replace('T', ' ').slice(0, 16) + ' UTC'; }
  function savedLabel(n) { return document.getElementById('q' + n + '-saved'); }
  function setSaved(n, text, isError, updatedAt) {
    var el = savedLabel(n);
    if (!el) return;
    el.textContent = text;
    el.classList.toggle('error', !!isError);
    if (updatedAt) el.setAttribute('data-updated-at', updatedAt);
  }
  function entry(n) {
    if (!state[n]) state[n] = { saved: null, running: null, timer: null };
    return state[n];
  }
  function call(method, url, body) {
    var options = { method: method, headers: { Accept: 'application/json' } };
    if (body !== undefined) { options.headers['Content-Type'] = 'application/json'; options.body = JSON.stringify(body); }
    return fetch(url, options).then(function (res) {
      return res.json().catch(function () { return null; }).then(function (json) {
        if (!res.ok || !json || !json.success) {
          var message = json && json.error ? json.error.message : 'The server did not answer (' + res.status + ')';
          throw new Error(message);
        }
        return json.data;
      });
    });
  }

  /** Saves question n if its text differs from what the server has; resolves when saved. */
  function save(n) {
    var e = entry(n);
    clearTimeout(e.timer);
    if (e.running) { var again = function () { return save(n); }; return e.running.then(again, again); }
    var text = document.getElementById('answer-' + n).value;
    if (text === e.saved) return Promise.resolve();
    if (!/\S/.test(text)) { setSaved(n, 'An empty answer is not saved', true); return Promise.resolve(); }
    setSaved(n, 'Saving…', false);
    e.running = call('PUT', api + '/answers/' + n, { text: text }).then(function (data) {
      e.saved = data.answer.text;
      setSaved(n, 'Saved ' + fmt(data.answer.updatedAt), false, data.answer.updatedAt);
    }, function (error) {
      setSaved(n, 'Not saved: ' + error.message, true);
      throw error;
    }).finally(function () { e.running = null; });
    return e.running;
  }

  var areas = document.querySelectorAll('textarea[data-n]');
  Array.prototype.forEach.call(areas, function (area) {
    var n = area.getAttribute('data-n');
    entry(n).saved = area.value === '' ? null : area.value;
    area.addEventListener('input', function () {
      var e = entry(n);
      setSaved(n, 'Unsaved changes', false);
      clearTimeout(e.timer);
      e.timer = setTimeout(function () { save(n).catch(function () {}); }, 1200);
    });
    area.addEventListener('blur', function () { save(n).catch(function () {}); });
  });
  Array.prototype.forEach.call(document.querySelectorAll('button.save'), function (button) {
    button.addEventListener('click', function () { save(button.getAttribute('data-n')).catch(function () {}); });
  });

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var submit = document.getElementById('submit');
    submit.disabled = true;
    formStatus.className = 'status-line';
    formStatus.textContent = 'Saving your answers…';
    var pending = Array.prototype.map.call(areas, function (area) { return save(area.getAttribute('data-n')); });
    Promise.all(pending).then(function () {
      return call('POST', api + '/submit');
    }).then(function () {
      document.body.setAttribute('data-status', 'answered');
      formStatus.className = 'status-line done';
      formStatus.textContent = 'Thank you, your answers were submitted. You can still change them: each change is saved and the asker can see it.';
      submit.textContent = 'Submit again';
    }, function (error) {
      formStatus.className = 'status-line error';
      formStatus.textContent = 'Not submitted: ' + error.message + '. Please try again.';
    }).finally(function () { submit.disabled = false; });
  });

  // The page was rendered by the server; refresh each answer's saved time from the API.
  call('GET', api).then(function (data) {
    document.body.setAttribute('data-status', data.batch.status);
    data.batch.questions.forEach(function (q) {
      if (q.answer && entry(q.n).saved === q.answer.text) setSaved(q.n, 'Saved ' + fmt(q.answer.updatedAt), false, q.answer.updatedAt);
    });
    document.body.setAttribute('data-ready', 'true');
  }, function () { document.body.setAttribute('data-ready', 'true'); });
})();
