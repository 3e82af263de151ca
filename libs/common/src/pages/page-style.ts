/** The one stylesheet of the share page, the dashboard and the account pages (served at /assets/app.css). */
export const APP_CSS = `
:root { color-scheme: light; --ink: #1c2430; --muted: #5b6675; --line: #d9dee5; --bg: #f5f7fa; --card: #fff; --accent: #2357c6; --accent-ink: #fff; --ok: #1d7a46; --warn: #a35a00; --err: #b3261e; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
main { max-width: 48rem; margin: 0 auto; padding: 1.25rem 1rem 4rem; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: .5rem 0 1rem; }
h2 { font-size: 1.15rem; margin: 0 0 .5rem; }
h3 { font-size: 1rem; margin: 0 0 .25rem; }
a { color: var(--accent); }
.card, .question { background: var(--card); border: 1px solid var(--line); border-radius: .6rem; padding: 1rem; margin: 0 0 1rem; }
.intro { margin-bottom: 1.25rem; }
.question-body { color: var(--ink); margin-bottom: .75rem; overflow-wrap: anywhere; }
.question-body pre { white-space: pre-wrap; }
label { display: block; font-weight: 600; margin: .5rem 0 .25rem; }
textarea, input[type=text], input[type=email], input[type=password], select { width: 100%; font: inherit; padding: .55rem .65rem; border: 1px solid #9aa5b4; border-radius: .4rem; background: #fff; color: var(--ink); }
textarea { min-height: 6.5rem; resize: vertical; }
textarea:focus, input:focus, select:focus, button:focus-visible { outline: 3px solid #9cb8f0; outline-offset: 1px; }
button { font: inherit; padding: .5rem .95rem; border-radius: .4rem; border: 1px solid var(--accent); background: var(--accent); color: var(--accent-ink); cursor: pointer; min-height: 2.5rem; }
button.secondary { background: #fff; color: var(--accent); }
button.danger { background: #fff; color: var(--err); border-color: var(--err); }
button:disabled { opacity: .6; cursor: default; }
.row { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem .75rem; margin-top: .5rem; }
.saved { color: var(--muted); font-size: .9rem; }
.saved.error, .error { color: var(--err); }
.status-line { padding: .6rem .8rem; border-radius: .4rem; background: #e8eefb; margin: 0 0 1rem; }
.status-line.done { background: #e3f3ea; color: var(--ok); }
.status-line:empty { display: none; }
.badge { display: inline-block; padding: .05rem .5rem; border-radius: 1rem; font-size: .8rem; border: 1px solid var(--line); background: #eef1f5; }
.badge.draft { background: #fff4e0; color: var(--warn); }
.badge.sent, .badge.opened { background: #e8eefb; color: var(--accent); }
.badge.answered { background: #e3f3ea; color: var(--ok); }
.muted { color: var(--muted); }
.secret { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; word-break: break-all; background: #fffbe6; border: 1px solid #f0d77a; padding: .5rem; border-radius: .4rem; display: block; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: .45rem .4rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.topbar { display: flex; justify-content: space-between; align-items: center; gap: 1rem; flex-wrap: wrap; }
.tabs { display: flex; gap: .5rem; margin: 0 0 1rem; flex-wrap: wrap; }
.tabs button[aria-selected=true] { background: var(--accent); color: #fff; }
.tabs button[aria-selected=false] { background: #fff; color: var(--accent); }
.answer { background: #f7f9fc; border-left: 3px solid var(--accent); padding: .4rem .6rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
main.wide { max-width: 68rem; }
.narrow { max-width: 26rem; }
h1 .logo { vertical-align: -5px; margin-right: .35rem; }
h4, h5 { margin: .25rem 0; font-size: 1rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9em; }
.section-head { display: flex; justify-content: space-between; align-items: center; gap: .75rem; flex-wrap: wrap; margin-bottom: .5rem; }
.section-head h2 { margin: 0; }
.inset { background: #f7f9fc; border: 1px solid var(--line); border-radius: .6rem; padding: .75rem 1rem 1rem; margin: .5rem 0 1rem; }
.fields { display: grid; grid-template-columns: 1fr 1fr; gap: 0 1rem; }
fieldset { border: 0; padding: 0; margin: 1rem 0 0; }
legend { font-weight: 700; padding: 0; }
.question-editor { border-left: 3px solid var(--line); padding: 0 0 .5rem .75rem; margin: .5rem 0; }
.preview { border: 1px dashed #9aa5b4; border-radius: .6rem; padding: .75rem 1rem; margin: 1rem 0 0; background: #fff; }
.site, .batch { border: 1px solid var(--line); border-radius: .6rem; padding: .85rem 1rem; margin: 0 0 .75rem; background: #fff; }
.site-head { display: flex; align-items: baseline; gap: .75rem; flex-wrap: wrap; }
.site-head h3 { margin: 0; }
.rename { margin: 0 0 .25rem; }
.rename input { flex: 1 1 14rem; width: auto; }
.small-text { font-size: .88rem; margin: .25rem 0; }
button.small { min-height: 2rem; padding: .25rem .7rem; font-size: .9rem; }
details.embed { margin: .35rem 0; }
details.embed summary { cursor: pointer; color: var(--accent); font-size: .92rem; }
.copy-row { display: flex; align-items: center; gap: .5rem; margin: .35rem 0; min-width: 0; }
.copy-row code, .copy-row a { flex: 1 1 auto; min-width: 0; overflow-wrap: anywhere; }
.snippet { display: block; background: #f1f4f8; border: 1px solid var(--line); border-radius: .4rem; padding: .45rem .6rem; }
.secret-box { background: #fffbe6; border: 1px solid #f0d77a; border-radius: .6rem; padding: .5rem .75rem; margin: .6rem 0 0; }
.secret-box p { margin: 0 0 .25rem; }
.secret-box .secret { border: 0; padding: .25rem 0; background: transparent; }
.secret[data-secret=recovery-codes] { white-space: pre-line; }
.filters { margin: 0 0 .75rem; }
.filters label { margin: 0; }
.filters select { width: auto; min-width: 10rem; }
select.triage { min-width: 8.5rem; width: auto; }
table.feedback td.message { width: 50%; overflow-wrap: anywhere; }
table.feedback td:first-child { white-space: nowrap; font-variant-numeric: tabular-nums; }
.stars { color: #c98a00; letter-spacing: .05em; white-space: nowrap; }
.badge.type-bug { background: #fdecea; color: var(--err); }
.badge.type-feature_request { background: #efe8fb; color: #5b36a8; }
@media (max-width: 40rem) {
  .fields { grid-template-columns: 1fr; }
  table.feedback thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.feedback, table.feedback tbody, table.feedback tr, table.feedback td { display: block; width: 100%; }
  table.feedback tr { border: 1px solid var(--line); border-radius: .6rem; padding: .4rem .75rem; margin: 0 0 .75rem; background: #fff; }
  table.feedback td { border: 0; padding: .2rem 0; display: flex; gap: .75rem; align-items: baseline; }
  table.feedback td::before { content: attr(data-label); flex: 0 0 4.5rem; color: var(--muted); font-size: .85rem; }
  table.feedback td.message { width: 100%; display: block; }
  table.feedback td.message::before { display: block; }
  table.feedback select.triage { flex: 1 1 auto; }
  .filters select { flex: 1 1 8rem; min-width: 0; }
}
@media (max-width: 30rem) { main { padding: .75rem .6rem 3rem; } h1 { font-size: 1.35rem; } .row button { flex: 1 1 auto; } .card { padding: .85rem; } }
/* Dashboard triage: filters, bulk bar, site card menu, keyboard focus. */
.topbar { margin-bottom: 1rem; }
.filter-grid { display: grid; grid-template-columns: minmax(12rem, 2fr) repeat(5, minmax(7.5rem, 1fr)); gap: .25rem .6rem; align-items: end; }
.filter-grid > div { min-width: 0; }
.filter-grid label { margin: 0 0 .2rem; font-size: .88rem; }
.filter-grid select, .filter-grid input { width: 100%; min-width: 0; }
input[type=search], input[type=date] { font: inherit; padding: .5rem .6rem; border: 1px solid #9aa5b4; border-radius: .4rem; background: #fff; color: var(--ink); }
.bulk { margin: .25rem 0 .25rem; }
.bulk label.check { display: inline-flex; align-items: center; gap: .4rem; margin: 0; font-weight: 400; }
.keys { margin: .25rem 0 .75rem; }
kbd { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .8rem; border: 1px solid var(--line); border-bottom-width: 2px; border-radius: .25rem; padding: 0 .3rem; background: #fff; }
table.feedback td.pick { width: 2rem; }
table.feedback tr.current { outline: 2px solid var(--accent); outline-offset: -2px; background: #f3f6fd; }
.badge.new { background: #e8eefb; color: var(--accent); border-color: #b9c9ef; font-weight: 600; }
.site .actions { align-items: flex-start; }
details.menu { position: relative; }
details.menu summary { list-style: none; cursor: pointer; padding: .5rem .95rem; min-height: 2.5rem; border: 1px solid var(--line); border-radius: .4rem; color: var(--accent); background: #fff; }
details.menu summary::-webkit-details-marker { display: none; }
details.menu summary { -webkit-tap-highlight-color: transparent; }
details.menu [data-delete] { color: var(--err); border-color: #e4b4b0; }
details.menu summary::after { content: " ▾"; }
details.menu .menu-body { display: flex; flex-direction: column; gap: .4rem; margin-top: .4rem; padding: .5rem; border: 1px solid var(--line); border-radius: .5rem; background: #fff; min-width: 14rem; }
details.menu hr { border: 0; border-top: 1px solid var(--line); margin: .2rem 0; width: 100%; }
.empty p { margin: 0 0 .5rem; }
/* The webhook panel (dashboard and account centre): endpoint cards, the event checkboxes, the deliveries table (cards of rows on a phone). */
input[type=url] { width: 100%; font: inherit; padding: .55rem .65rem; border: 1px solid #9aa5b4; border-radius: .4rem; background: #fff; color: var(--ink); }
#webhook-event-types { display: flex; flex-wrap: wrap; gap: .25rem 1.25rem; }
#webhook-event-types legend { width: 100%; margin-bottom: .25rem; }
#webhook-event-types label.check { display: inline-flex; align-items: center; gap: .4rem; margin: 0; font-weight: 400; min-height: 2rem; }
.hook { border: 1px solid var(--line); border-radius: .6rem; padding: .85rem 1rem; margin: .75rem 0; background: #fff; }
.hook-url { font-weight: 600; overflow-wrap: anywhere; min-width: 0; }
.hook .actions select.test-type { width: auto; min-width: 12rem; }
.badge.hook-enabled, .badge.delivery-delivered { background: #e3f3ea; color: var(--ok); }
.badge.hook-failing, .badge.delivery-pending { background: #fff4e0; color: var(--warn); }
.badge.hook-disabled, .badge.delivery-failed { background: #fdecea; color: var(--err); }
table.deliveries { margin-top: .5rem; font-size: .92rem; }
table.deliveries .event-id { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .78rem; overflow-wrap: anywhere; }
table.deliveries td.replay { text-align: right; }
@media (max-width: 40rem) {
  .hook { padding: .75rem; }
  .hook .actions select.test-type { flex: 1 1 100%; min-width: 0; width: 100%; }
  .hook .actions > button { flex: 1 1 auto; }
  table.deliveries thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.deliveries, table.deliveries tbody, table.deliveries tr, table.deliveries td { display: block; width: 100%; }
  table.deliveries tr { border: 1px solid var(--line); border-radius: .6rem; padding: .4rem .75rem; margin: 0 0 .6rem; }
  table.deliveries td { border: 0; padding: .15rem 0; display: flex; gap: .75rem; align-items: baseline; }
  table.deliveries td::before { content: attr(data-label); flex: 0 0 5rem; color: var(--muted); font-size: .85rem; }
  table.deliveries td > * { min-width: 0; }
  table.deliveries td.replay { text-align: left; }
  table.deliveries td.replay::before { display: none; }
  table.deliveries td.replay button { width: 100%; }
}
@media (max-width: 40rem) {
  .filter-grid { grid-template-columns: 1fr 1fr; }
  .filter-grid .grow { grid-column: 1 / -1; }
  .keys { display: none; }
  table.feedback td.pick { width: auto; }
  table.feedback td.pick::before { content: "Select"; flex: 0 0 4.5rem; color: var(--muted); font-size: .85rem; }
  .site .actions { flex-wrap: nowrap; }
  .site .actions > button { flex: 1 1 0; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  details.menu { flex: 0 0 auto; }
  .site .actions:has(details.menu[open]) { flex-wrap: wrap; }
  details.menu[open] { flex: 1 1 100%; }
  details.menu .menu-body button { width: 100%; }
}
`;
