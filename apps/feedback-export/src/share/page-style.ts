/** The one stylesheet of the share page and the dashboard (served at /assets/app.css). */
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
@media (max-width: 30rem) { main { padding: .75rem .6rem 3rem; } h1 { font-size: 1.35rem; } .row button { flex: 1 1 auto; } }
`;
