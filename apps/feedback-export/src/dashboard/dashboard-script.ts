/**
 * The dashboard's script (served at /assets/dashboard.js). Everything is built with DOM
 * calls and textContent; the only HTML inserted is question/intro HTML already sanitised by
 * the server, and the page's CSP forbids inline script besides.
 */
export const DASHBOARD_SCRIPT = String.raw`(function () {
  'use strict';
  var AUTH_BASE = document.body.getAttribute('data-auth-base');
  var STORE = 'feedback-dashboard-session';
  var session = null;
  var currentSite = null;
  var feedbackCursor = null;

  function $(id) { return document.getElementById(id); }
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === 'text') node.textContent = attrs[key];
      else if (key === 'className') node.className = attrs[key];
      else if (key.slice(0, 2) === 'on') node.addEventListener(key.slice(2), attrs[key]);
      else if (attrs[key] !== false && attrs[key] != null) node.setAttribute(key, attrs[key] === true ? '' : attrs[key]);
    });
    (children || []).forEach(function (child) { if (child != null) node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child); });
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  function when(iso) { return iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '—'; }
  function notice(text, isError) { var n = $('notice'); n.textContent = text || ''; n.className = 'status-line' + (isError ? ' error' : ''); }

  function request(url, method, body, token) {
    var headers = { Accept: 'application/json' };
    if (token) headers.Authorization = 'Bearer ' + token;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return fetch(url, { method: method || 'GET', headers: headers, body: body === undefined ? undefined : JSON.stringify(body) }).then(function (res) {
      return res.json().catch(function () { return null; }).then(function (json) {
        if (!res.ok || !json || !json.success) {
          var error = new Error(json && json.error ? json.error.message : 'The server answered ' + res.status);
          error.status = res.status;
          error.code = json && json.error ? json.error.code : undefined;
          throw error;
        }
        return json.data;
      });
    });
  }

  function saveSession(data) {
    session = data;
    if (data) sessionStorage.setItem(STORE, JSON.stringify(data)); else sessionStorage.removeItem(STORE);
  }

  function refresh() {
    if (!session || !session.refreshToken) return Promise.reject(new Error('Signed out'));
    return request(AUTH_BASE + '/api/v1/auth/refresh', 'POST', { refreshToken: session.refreshToken }).then(function (data) {
      saveSession({ token: data.token, refreshToken: data.refreshToken, email: session.email });
    });
  }

  /** An owner call; an expired access token is refreshed once, then the owner signs in again. */
  function api(method, path, body) {
    if (!session) return Promise.reject(new Error('Signed out'));
    return request(path, method, body, session.token).catch(function (error) {
      if (error.status !== 401) throw error;
      return refresh().then(function () { return request(path, method, body, session.token); }, function () {
        signOut('Your session ended; please sign in again.');
        throw error;
      });
    });
  }

  function showSignedIn() {
    $('sign-in').hidden = true;
    $('app').hidden = false;
    $('account').hidden = false;
    $('who').textContent = 'Signed in as ' + (session.email || 'owner');
    loadSites();
  }

  function signOut(message) {
    if (session) request(AUTH_BASE + '/api/v1/auth/logout', 'POST', {}, session.token).catch(function () {});
    saveSession(null);
    currentSite = null;
    $('app').hidden = true;
    $('account').hidden = true;
    $('site-view').hidden = true;
    $('sign-in').hidden = false;
    notice(message || '');
    $('email').focus();
  }

  $('sign-in-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var button = $('sign-in-button');
    button.disabled = true;
    $('sign-in-error').textContent = '';
    var email = $('email').value.trim();
    request(AUTH_BASE + '/api/v1/auth/login', 'POST', { email: email, password: $('password').value }).then(function (data) {
      $('password').value = '';
      saveSession({ token: data.token, refreshToken: data.refreshToken, email: (data.user && data.user.email) || email });
      notice('');
      showSignedIn();
    }, function (error) {
      $('sign-in-error').textContent = error.code === 'INVALID_CREDENTIALS' ? 'Wrong e-mail or password.' : error.message;
    }).finally(function () { button.disabled = false; });
  });
  $('sign-out').addEventListener('click', function () { signOut('Signed out.'); });

  // ---- sites and tokens ----
  function loadSites() {
    api('GET', '/api/v1/sites').then(function (data) {
      var box = clear($('sites'));
      if (data.sites.length === 0) { box.appendChild(el('p', { className: 'muted', text: 'No sites yet. Create one through the API (POST /api/v1/sites).' })); return; }
      data.sites.forEach(function (site) { box.appendChild(siteCard(site)); });
    }, function (error) { notice('Could not load your sites: ' + error.message, true); });
  }

  function rotateButton(site, kind, output) {
    var label = 'Rotate ' + kind + ' token';
    var armed = false;
    var button = el('button', { type: 'button', className: 'secondary', 'data-rotate': kind, text: label });
    button.addEventListener('click', function () {
      if (!armed) {
        armed = true;
        button.className = 'danger';
        button.textContent = 'Confirm: replace the ' + kind + ' token';
        return;
      }
      armed = false;
      button.disabled = true;
      api('POST', '/api/v1/sites/' + site.id + '/tokens/' + kind + '/rotate').then(function (data) {
        clear(output).hidden = false;
        output.appendChild(el('p', { text: 'New ' + kind + ' token for ' + site.name + '. It is shown only this once: copy it now. The previous ' + kind + ' token has stopped working.' }));
        output.appendChild(el('code', { className: 'secret', 'data-secret': kind, text: data.token }));
      }, function (error) { notice('Rotation failed: ' + error.message, true); }).finally(function () {
        button.disabled = false;
        button.className = 'secondary';
        button.textContent = label;
      });
    });
    return button;
  }

  function siteCard(site) {
    var output = el('div', { className: 'card', role: 'status', hidden: true });
    return el('div', { className: 'card', 'data-site': site.id }, [
      el('h3', { text: site.name }),
      el('p', { className: 'muted', text: 'Slug ' + site.slug + ' · read token ' + (site.readTokenCreatedAt ? 'issued ' + when(site.readTokenCreatedAt) : 'not issued') + ' · write token ' + (site.writeTokenCreatedAt ? 'issued ' + when(site.writeTokenCreatedAt) : 'not issued') }),
      el('div', { className: 'row' }, [
        el('button', { type: 'button', 'data-open': site.id, text: 'Open ' + site.name, onclick: function () { openSite(site); } }),
        rotateButton(site, 'read', output),
        rotateButton(site, 'write', output),
      ]),
      output,
    ]);
  }

  // ---- one site: feedback and batches ----
  function openSite(site) {
    currentSite = site;
    $('site-view').hidden = false;
    $('site-title').textContent = site.name;
    selectTab('feedback');
    feedbackCursor = null;
    clear($('feedback-list'));
    loadFeedback();
    loadBatches();
    $('site-view').scrollIntoView();
  }

  function selectTab(which) {
    ['feedback', 'batches'].forEach(function (name) {
      $('tab-' + name).setAttribute('aria-selected', String(name === which));
      $('panel-' + name).hidden = name !== which;
    });
  }
  $('tab-feedback').addEventListener('click', function () { selectTab('feedback'); });
  $('tab-batches').addEventListener('click', function () { selectTab('batches'); });

  function loadFeedback() {
    var site = currentSite;
    var query = '?limit=50' + (feedbackCursor ? '&since=' + encodeURIComponent(feedbackCursor) : '');
    api('GET', '/api/v1/sites/' + site.id + '/feedback' + query).then(function (data) {
      if (site !== currentSite) return;
      var list = $('feedback-list');
      var table = list.querySelector('table');
      if (!table) {
        if (data.feedback.length === 0) { list.appendChild(el('p', { className: 'muted', text: 'No feedback yet.' })); }
        else {
          table = el('table', {}, [el('thead', {}, [el('tr', {}, ['When', 'Type', 'Rating', 'Message', 'Status'].map(function (h) { return el('th', { scope: 'col', text: h }); }))]), el('tbody')]);
          list.appendChild(table);
        }
      }
      data.feedback.forEach(function (item) { table.tBodies[0].appendChild(feedbackRow(item)); });
      feedbackCursor = data.nextCursor;
      $('more-feedback').hidden = !data.hasMore;
    }, function (error) { notice('Could not load feedback: ' + error.message, true); });
  }
  $('more-feedback').addEventListener('click', loadFeedback);

  function feedbackRow(item) {
    var select = el('select', { 'aria-label': 'Status of feedback from ' + item.createdAt, 'data-feedback': item.id }, ['new', 'triaged', 'resolved'].map(function (s) {
      return el('option', { value: s, text: s, disabled: s === 'new' && item.status !== 'new', selected: s === item.status });
    }));
    select.addEventListener('change', function () {
      select.disabled = true;
      api('PUT', '/api/v1/sites/' + currentSite.id + '/feedback/' + item.id, { status: select.value }).then(function (data) {
        item.status = data.feedback.status;
        select.querySelector('option[value=new]').disabled = true;
        notice('Feedback marked ' + item.status + '.');
      }, function (error) {
        select.value = item.status;
        notice('Could not change the status: ' + error.message, true);
      }).finally(function () { select.disabled = false; });
    });
    var page = el('a', { href: /^https?:/.test(item.pageUrl) ? item.pageUrl : null, rel: 'noopener noreferrer', target: '_blank', text: item.pageUrl });
    return el('tr', {}, [
      el('td', { text: item.createdAt }),
      el('td', { text: item.type.replace('_', ' ') }),
      el('td', { text: item.rating == null ? '—' : item.rating + '/5' }),
      el('td', {}, [el('div', { text: item.message }), el('div', { className: 'muted' }, [page])]),
      el('td', {}, [select]),
    ]);
  }

  function loadBatches() {
    var site = currentSite;
    api('GET', '/api/v1/sites/' + site.id + '/questions').then(function (data) {
      if (site !== currentSite) return;
      var box = clear($('batch-list'));
      if (data.batches.length === 0) { box.appendChild(el('p', { className: 'muted', text: 'No question batches yet. Create them through the API with the write token.' })); return; }
      data.batches.slice().reverse().forEach(function (batch) { box.appendChild(batchCard(batch)); });
    }, function (error) { notice('Could not load question batches: ' + error.message, true); });
  }

  function batchCard(batch) {
    var details = el('div', { className: 'batch-details' });
    var linkBox = el('p', { className: 'batch-link' });
    var base = '/api/v1/sites/' + currentSite.id + '/questions/' + batch.id;
    var buttons = [el('button', { type: 'button', className: 'secondary', text: 'Show questions and answers', onclick: function () { showBatch(base, details); } })];
    if (batch.status === 'draft') {
      buttons.push(el('button', { type: 'button', 'data-send': batch.id, text: 'Send “' + batch.title + '”', onclick: function (event) {
        event.target.disabled = true;
        api('POST', base + '/send').then(function (data) {
          notice('Sent. Give the recipient this link: ' + data.shareUrl);
          loadBatches();
        }, function (error) { event.target.disabled = false; notice('Could not send: ' + error.message, true); });
      } }));
    } else {
      buttons.push(el('button', { type: 'button', className: 'secondary', text: 'Show share link', onclick: function () {
        api('GET', base + '/link').then(function (data) {
          clear(linkBox).appendChild(el('a', { href: data.shareUrl, target: '_blank', rel: 'noopener noreferrer', text: data.shareUrl }));
        }, function (error) { notice('Could not fetch the link: ' + error.message, true); });
      } }));
    }
    return el('div', { className: 'card', 'data-batch': batch.id }, [
      el('h3', {}, [batch.title + ' ', el('span', { className: 'badge ' + batch.status, 'data-status': batch.status, text: batch.status })]),
      el('p', { className: 'muted', text: batch.answerCount + ' of ' + batch.questionCount + ' answered · created ' + when(batch.createdAt) + (batch.sentAt ? ' · sent ' + when(batch.sentAt) : '') + (batch.openedAt ? ' · opened ' + when(batch.openedAt) : '') + (batch.answeredAt ? ' · answered ' + when(batch.answeredAt) : '') }),
      el('div', { className: 'row' }, buttons),
      linkBox,
      details,
    ]);
  }

  function showBatch(path, box) {
    api('GET', path).then(function (data) {
      clear(box);
      var batch = data.batch;
      if (batch.introHtml) { var intro = el('div', { className: 'intro' }); intro.innerHTML = batch.introHtml; box.appendChild(intro); }
      box.appendChild(el('p', { className: 'muted', text: 'Notifications go to ' + batch.notifyEmail }));
      batch.questions.forEach(function (q) {
        var body = el('div', { className: 'question-body' });
        body.innerHTML = q.html;
        box.appendChild(el('div', { className: 'question' }, [
          el('h4', { text: q.n + '. ' + q.title }),
          body,
          q.answer ? el('div', {}, [el('div', { className: 'answer', text: q.answer.text }), el('p', { className: 'muted', text: 'Updated ' + when(q.answer.updatedAt) })]) : el('p', { className: 'muted', text: 'No answer yet' }),
        ]));
      });
    }, function (error) { notice('Could not load the batch: ' + error.message, true); });
  }

  try { session = JSON.parse(sessionStorage.getItem(STORE) || 'null'); } catch (e) { session = null; }
  if (session && session.token) showSignedIn(); else signOut('');
  document.body.setAttribute('data-ready', 'true');
})();
`;
