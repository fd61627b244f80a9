/**
 * The key-management page's stylesheet and its one little script, sent inline under the
 * response's nonce (page-html.ts): the Content-Security-Policy allows nothing else, so the page
 * loads no file and no inline attribute (`style=`, `onclick=`) would run. Without the script the
 * page still works; it only adds the Copy button, and opens the "New key" dialog in place instead
 * of loading the page again with it open.
 */

/**
 * Cards stack below 640px, inputs and buttons there take the full width, and every control is at
 * least 40px tall so a thumb can hit it. The usage meter colours itself from its low/high/optimum
 * attributes (green, amber, red), the same thresholds as `usageLevel` in page-keys-html.ts.
 */
export const PAGE_CSS = `
:root { color-scheme: light dark; --bg: #f5f6f8; --card: #fff; --text: #1b1f24; --muted: #5c6773; --line: #d8dde4;
  --accent: #2457c5; --green: #2e7d32; --amber: #b26a00; --red: #c62828; --new: #fff8e1; }
@media (prefers-color-scheme: dark) { :root { --bg: #14171b; --card: #1e2228; --text: #e6e9ed; --muted: #9aa5b1;
  --line: #353b44; --accent: #7aa2ff; --green: #66bb6a; --amber: #ffb74d; --red: #ef5350; --new: #3a3220; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  background: var(--bg); color: var(--text); }
a { color: var(--accent); }
header.top { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; justify-content: space-between;
  padding: .6rem 1rem; background: var(--card); border-bottom: 1px solid var(--line); }
header.top h1 { font-size: 1.15rem; margin: 0; }
header.top .who { color: var(--muted); }
header.top form { display: flex; gap: .75rem; align-items: center; margin: 0; }
main { max-width: 76rem; margin: 0 auto; padding: 1rem; }
main.narrow { max-width: 26rem; padding-top: 10vh; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
.box { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem;
  margin: .75rem 0; }
.flash { border-left: 5px solid var(--green); }
.error { border-left: 5px solid var(--red); }
.error p { overflow-wrap: anywhere; margin: .4rem 0 0; }
.error code.suggestion { font-weight: 600; }
#new-key { border: 2px solid var(--amber); background: var(--new); }
#new-key .row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
#new-key input { flex: 1 1 20rem; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
#new-key .copied { color: var(--green); font-weight: 600; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em;
  overflow-wrap: anywhere; }
button, input, select, textarea { font: inherit; color: var(--text); }
button { min-height: 40px; padding: .4rem .9rem; border-radius: 6px; border: 1px solid var(--line);
  background: var(--card); cursor: pointer; }
button:hover { border-color: var(--accent); }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger { color: var(--red); border-color: var(--red); }
input, select, textarea { min-height: 40px; padding: .35rem .5rem; border: 1px solid var(--line); border-radius: 6px;
  background: var(--bg); max-width: 100%; }
input[type=checkbox] { min-height: 0; width: 1.25rem; height: 1.25rem; }
label { display: flex; flex-direction: column; gap: .2rem; font-size: .9rem; color: var(--muted); }
label.check { flex-direction: row; align-items: center; gap: .5rem; }
form#login { display: flex; flex-direction: column; gap: .75rem; }
form#create-key { display: grid; grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); gap: .75rem;
  align-items: end; }
form#create-key .wide { grid-column: 1 / -1; }
.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: baseline; color: var(--muted); }
form.filters { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .5rem .75rem;
  align-items: end; }
form.filters input[type=search] { width: 18rem; }
.section-head { display: flex; align-items: center; justify-content: space-between; gap: 1rem; }
a.button { display: inline-flex; align-items: center; min-height: 40px; padding: .4rem .9rem; border-radius: 6px;
  border: 1px solid var(--accent); text-decoration: none; }
a.button.primary { background: var(--accent); color: #fff; }
.pager { display: flex; flex-wrap: wrap; gap: .25rem .9rem; align-items: center; margin: .6rem 0; color: var(--muted); }
.pager .range { margin-right: auto; }
.pager a { min-height: 40px; display: inline-flex; align-items: center; }
table.keys-table th a { color: inherit; text-decoration: none; white-space: nowrap; }
table.keys-table th[aria-sort] a { color: var(--accent); }
table.keys-table td { white-space: nowrap; }
table.keys-table td:nth-child(2) { white-space: normal; min-width: 8rem; overflow-wrap: anywhere; }
tr.key-row[data-state=revoked] { opacity: .55; }
.usage-cell meter { width: 4rem; vertical-align: middle; }
.state-active { color: var(--green); font-size: .85rem; font-weight: 600; }
dialog { border: 1px solid var(--line); border-radius: 10px; background: var(--card); color: var(--text);
  max-width: min(56rem, 94vw); padding: 1rem 1.25rem; }
dialog::backdrop { background: rgb(0 0 0 / .35); }
dialog h2 { grid-column: 1 / -1; margin: 0; }
dialog .row { display: flex; gap: .75rem; align-items: center; grid-column: 1 / -1; }
.crumbs { margin: .25rem 0 .75rem; }
.usage-chart { margin: .75rem 0; max-width: 48rem; }
.usage-chart svg { width: 100%; height: auto; display: block; background: var(--card); border: 1px solid var(--line);
  border-radius: 8px; }
.usage-chart .bar { fill: var(--accent); }
.usage-chart .grid { stroke: var(--line); stroke-dasharray: 3 3; }
.usage-chart .baseline { stroke: var(--muted); }
.usage-chart .axis { fill: var(--muted); font-size: 11px; }
.usage-chart figcaption { color: var(--muted); font-size: .85rem; margin-top: .25rem; }
#key article.key { max-width: 48rem; }
article.key { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem;
  min-width: 0; }
article.key[data-state=revoked] { opacity: .55; }
article.key h3 { margin: 0; font-size: 1rem; display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
dl.fields { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .15rem .75rem; margin: .5rem 0;
  font-size: .95rem; }
dl.fields dt { color: var(--muted); }
dl.fields dd { margin: 0; overflow-wrap: anywhere; }
.tier { display: inline-block; padding: 0 .55rem; border-radius: 999px; font-size: .8rem; font-weight: 600; }
.tier-free { background: #e3ecfa; color: #1d4f91; }
.tier-pro { background: #efe4fb; color: #6a2fb0; }
.tier-commercial { background: #fdf0d5; color: #7a4f00; }
.state-revoked, .state-expired { color: var(--red); font-size: .85rem; font-weight: 600; }
.key-name { font-weight: 600; overflow-wrap: anywhere; }
ul.grants { list-style: none; padding: 0; margin: .25rem 0; }
ul.grants li { display: flex; align-items: center; justify-content: space-between; gap: .5rem; }
ul.grants form { margin: 0; }
button.ungrant { min-width: 40px; padding: 0 .6rem; }
.usage { margin: .4rem 0; font-size: .9rem; }
.usage .numbers { display: flex; justify-content: space-between; gap: .5rem; }
.usage meter { display: block; width: 100%; height: 1rem; }
.usage .resets { color: var(--muted); font-size: .85rem; }
.usage[data-level=green] .used { color: var(--green); }
.usage[data-level=amber] .used { color: var(--amber); }
.usage[data-level=red] .used { color: var(--red); }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: .6rem; }
.actions form { display: flex; gap: .35rem; margin: 0; }
.actions input { width: 11rem; }
.scroll { overflow-x: auto; }
#audit td code, #audit td .mono { overflow-wrap: normal; white-space: nowrap; }
#audit td.changes { min-width: 16rem; overflow-wrap: anywhere; }
#audit td.changes .sep { color: var(--muted); }
.confirm { border: 2px solid var(--red); }
.confirm .row { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; }
a.button.danger { border-color: var(--red); color: var(--red); }
table { border-collapse: collapse; width: 100%; font-size: .9rem; background: var(--card); }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
.muted { color: var(--muted); }
@media (max-width: 640px) {
  main { padding: .6rem; }
  form#create-key { grid-template-columns: 1fr; }
  form.filters input[type=search] { width: 100%; }
  table.keys-table thead { display: none; }
  table.keys-table, table.keys-table tbody, table.keys-table tr, table.keys-table td { display: block; }
  table.keys-table tr { border-bottom: 1px solid var(--line); padding: .4rem 0; }
  table.keys-table td { border: 0; padding: .1rem .5rem; white-space: normal; }
  table.keys-table td::before { content: attr(data-label) ": "; color: var(--muted); }
  input, select, textarea { width: 100%; }
  input[type=checkbox] { width: 1.25rem; }
  .actions, .actions form { flex-direction: column; align-items: stretch; width: 100%; }
  .actions input, .actions button { width: 100%; }
  dl.fields { grid-template-columns: 1fr; }
  dl.fields dd { margin-bottom: .3rem; }
  #audit thead { display: none; }
  #audit table, #audit tbody, #audit tr, #audit td { display: block; }
  #audit tr { border-bottom: 1px solid var(--line); padding: .4rem 0; }
  #audit td { border: 0; padding: .1rem .5rem; }
  #audit td::before { content: attr(data-label) ": "; color: var(--muted); }
}
`;

/**
 * Open the "New key" dialog in place; copy a new key with the Clipboard API where the
 * page is a secure context (loopback is one), else by selecting the input and execCommand('copy').
 */
export const PAGE_SCRIPT = `
var dialog = document.getElementById('create-dialog');
var opener = document.getElementById('open-create');
if (dialog && opener && typeof dialog.showModal === 'function') {
  opener.addEventListener('click', function (event) { event.preventDefault(); dialog.showModal(); });
  var cancel = dialog.querySelector('a.cancel');
  if (cancel) cancel.addEventListener('click', function (event) { event.preventDefault(); dialog.close(); });
  // Opened by the page (after a refusal, or the link without script): modal, so Escape closes it.
  if (dialog.hasAttribute('open')) { dialog.removeAttribute('open'); dialog.showModal(); }
}
var box = document.getElementById('new-key');
if (box) {
  var input = box.querySelector('input');
  var button = box.querySelector('button.copy');
  var label = box.querySelector('.copied');
  var copied = function () { label.hidden = false; };
  var fallback = function () {
    input.focus();
    input.select();
    try { if (document.execCommand('copy')) copied(); } catch (error) {}
  };
  input.addEventListener('focus', function () { input.select(); });
  button.addEventListener('click', function () {
    if (navigator.clipboard && window.isSecureContext)
      navigator.clipboard.writeText(input.value).then(copied, fallback);
    else fallback();
  });
}
`;
