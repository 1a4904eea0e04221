/**
 * `platctl report` as one self-contained HTML page: inline CSS, SVG and a few lines of script, no request to any
 * network, so the file opens from disk, from a CI artifact or an e-mail. It draws {@link ReportModel} and nothing
 * else: `--format json` prints the same model.
 */
import type { ParallelismPoint, ReportModel, ReportRow } from './model.js';
import { SLOWER_FACTOR, SLOWER_MIN_MS } from './model.js';

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text and attribute values, escaped for HTML. */
export function esc(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => escapes[c]!);
}

/** `950 ms`, `42 s`, `3 m 05 s`, `1 h 02 m`. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} m ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} m`;
}

const TICKS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400].map((s) => s * 1000);

/** Tick positions (ms) for an axis of `span` ms: at most about ten. */
function ticks(span: number): number[] {
  const step = TICKS.find((t) => span / t <= 10) ?? Math.ceil(span / 10);
  const out: number[] = [];
  for (let at = 0; at <= span; at += step) out.push(at);
  return out;
}

const pct = (ms: number, span: number): string => `${((100 * ms) / span).toFixed(3)}%`;

export function renderReportHtml(model: ReportModel): string {
  const title = `platctl ${model.run.command} ${model.run.id}`;
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // Nothing may load from elsewhere: the page is whole in itself.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
    `<title>${esc(title)}</title>`,
    `<style>${CSS}</style></head><body>`,
    header(model),
    timeline(model),
    parallelism(model),
    problems(model),
    history(model),
    park(model),
    lockdown(model),
    `<script id="report-data" type="application/json">${jsonForScript(model)}</script>`,
    `<script>${SCRIPT}</script>`,
    '</body></html>',
    '',
  ].join('\n');
}

/** JSON safe inside a script element. */
function jsonForScript(model: ReportModel): string {
  return JSON.stringify(model).replace(/</g, '\\u003c');
}

function header(model: ReportModel): string {
  const { run } = model;
  const state = run.in_progress ? 'in progress' : run.status;
  const when = run.in_progress
    ? `started ${esc(run.started_at)}, drawn at ${esc(model.generated_at)}`
    : `${esc(run.started_at)} to ${esc(run.ended_at ?? model.generated_at)}`;
  const limit = model.parallelism.limit === undefined ? '' : ` of ${model.parallelism.limit}`;
  const counts = Object.entries(model.counts)
    .sort()
    .map(([status, n]) => `<span class="count s-${esc(status)}">${n} ${esc(status)}</span>`)
    .join(' ');
  const because = model.lower_bound_because === 'critical-path' ? 'the critical path' : 'all work over the slots';
  return `<header>
<h1>platctl ${esc(run.command)} <span class="status s-${esc(run.status)}" id="run-status">${esc(state)}</span></h1>
<p class="meta">run <code>${esc(run.id)}</code> · ${when} · environments ${esc(run.envs.join(', ') || '-')}${
    run.by ? ` · by ${esc(run.by)}` : ''
  }${run.resumes > 0 ? ` · resumed ${run.resumes}×` : ''}</p>
${run.stopped_because ? `<p class="warn">Stopped early: ${esc(run.stopped_because)}</p>` : ''}
<div class="cards">
<div class="card"><b id="makespan">${formatMs(model.makespan_ms)}</b><span>makespan${run.in_progress ? ' so far' : ''}</span></div>
<div class="card"><b id="lower-bound">${formatMs(model.lower_bound_ms)}</b><span>lower bound (${because})</span></div>
<div class="card"><b>${formatMs(model.critical_path_ms)}</b><span>critical path, ${model.critical_path.length} ${model.kind === 'park' ? 'steps' : 'units'}</span></div>
<div class="card"><b>${formatMs(model.work_ms)}</b><span>total work</span></div>
<div class="card"><b>${model.parallelism.max}${limit}</b><span>most at once</span></div>
</div>
<p class="counts">${counts}</p>
${model.notes.map((note) => `<p class="note">Note: ${esc(note)}</p>`).join('\n')}
</header>`;
}

function span(model: ReportModel): number {
  let end = model.makespan_ms;
  for (const row of model.rows) end = Math.max(end, row.end_ms ?? 0, (row.start_ms ?? 0) + (row.duration_ms ?? 0));
  return Math.max(end, 1);
}

function timeline(model: ReportModel): string {
  const total = span(model);
  const axis = ticks(total)
    .map((at) => `<span class="tick" style="left:${pct(at, total)}">${esc(formatMs(at))}</span>`)
    .join('');
  const groups = new Map<string, ReportRow[]>();
  for (const row of model.rows) groups.set(row.group, [...(groups.get(row.group) ?? []), row]);
  const body = [...groups.entries()]
    .map(
      ([group, rows]) =>
        `<div class="group">${esc(group)}</div>\n${rows
          .slice()
          .sort(
            (a, b) =>
              (a.start_ms ?? Infinity) - (b.start_ms ?? Infinity) || (a.wave ?? 0) - (b.wave ?? 0) || cmp(a.id, b.id),
          )
          .map((row) => ganttRow(row, total))
          .join('\n')}`,
    )
    .join('\n');
  return `<section id="timeline"><h2>Timeline</h2>
<p class="legend"><span class="key wait"></span> waiting for a slot <span class="key run"></span> running
<span class="key crit"></span> critical path <span class="key fail"></span> failed <span class="key skip"></span> skipped / not run
<label class="filter">Filter <input id="filter" type="search" placeholder="unit id, status"></label></p>
<div class="axis-row"><div class="label"></div><div class="axis">${axis}</div></div>
<div id="rows">${body}</div></section>`;
}

/**
 * Long ids keep their end (the unit's own name) and as much of their environment as fits:
 * `prod/…/nested/unit-010`, `prod-eu-west-1-with-a-ra…/unit-026`. The full id is the label's tooltip.
 */
export function shortId(id: string, max = 44): string {
  if (id.length <= max) return id;
  const parts = id.split('/');
  const env = parts[0]!;
  let tail = parts[parts.length - 1]!;
  if (env.length + tail.length + 3 > max) {
    const room = Math.max(4, max - tail.length - 2);
    return `${env.slice(0, room)}…/${tail}`;
  }
  for (let i = parts.length - 2; i > 0 && env.length + tail.length + parts[i]!.length + 4 <= max; i -= 1) {
    tail = `${parts[i]!}/${tail}`;
  }
  return `${env}/…/${tail}`;
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function ganttRow(row: ReportRow, total: number): string {
  const marks = [
    row.wave === undefined ? '' : `<span class="badge wave" title="wave ${row.wave}">w${row.wave}</span>`,
    row.optional
      ? '<span class="badge optional" title="optional: its failure does not fail the run">optional</span>'
      : '',
    row.recovered ? `<span class="badge recovered" title="${esc(row.recovered)}">recovered</span>` : '',
    row.slower ? '<span class="badge slower" title="slower than its history">slower</span>' : '',
    row.kept ? '<span class="badge kept" title="teardown floor: kept">kept</span>' : '',
  ].join('');
  const parts: string[] = [];
  if (row.ready_ms !== undefined && row.wait_ms !== undefined && row.wait_ms > 0) {
    parts.push(
      `<div class="waitbar" style="left:${pct(row.ready_ms, total)};width:${pct(row.wait_ms, total)}" title="waited ${esc(formatMs(row.wait_ms))} for a slot"></div>`,
    );
  }
  if (row.start_ms !== undefined) {
    const width = row.duration_ms ?? (row.end_ms === undefined ? 0 : row.end_ms - row.start_ms);
    const tip = [
      row.id,
      row.status,
      `start +${formatMs(row.start_ms)}`,
      `ran ${formatMs(width)}${row.running ? ' so far' : ''}`,
      row.wait_ms === undefined ? '' : `waited ${formatMs(row.wait_ms)}`,
      row.history_ms === undefined ? '' : `history ${formatMs(row.history_ms)}`,
      row.critical ? 'on the critical path' : '',
    ]
      .filter(Boolean)
      .join(' · ');
    parts.push(
      `<div class="bar s-${esc(row.status)}${row.critical ? ' critical' : ''}${row.running ? ' live' : ''}" data-unit="${esc(row.id)}" style="left:${pct(row.start_ms, total)};width:${pct(width, total)}" title="${esc(tip)}"></div>`,
    );
  } else {
    parts.push(
      `<div class="none">${esc(row.status)}${row.skipped_because ? ` (after ${esc(row.skipped_because)})` : ''}</div>`,
    );
  }
  return `<div class="row${row.critical ? ' on-path' : ''}" data-id="${esc(row.id)}" data-status="${esc(row.status)}"><div class="label" title="${esc(row.id)}"><span class="id">${esc(shortId(row.id))}</span>${marks}</div><div class="track">${parts.join('')}</div></div>`;
}

function parallelism(model: ReportModel): string {
  const { points, limit, max } = model.parallelism;
  if (points.length === 0) return '';
  const total = span(model);
  const top = Math.max(limit ?? 0, max, ...points.map((p) => p.waiting), 1);
  const W = 1000;
  const H = 160;
  const x = (ms: number): string => ((W * ms) / total).toFixed(1);
  const y = (n: number): string => (H - (H * n) / top).toFixed(1);
  const steps = (key: keyof Omit<ParallelismPoint, 'at_ms'>): string => {
    let d = `M0 ${H}`;
    let last = 0;
    for (const point of points) {
      d += ` L${x(point.at_ms)} ${y(last)} L${x(point.at_ms)} ${y(point[key])}`;
      last = point[key];
    }
    return `${d} L${W} ${y(last)}`;
  };
  const limitLine =
    limit === undefined
      ? ''
      : `<line class="limit" x1="0" x2="${W}" y1="${y(limit)}" y2="${y(limit)}" vector-effect="non-scaling-stroke"/>`;
  return `<section id="parallelism"><h2>Parallelism over time</h2>
<p class="legend"><span class="key run"></span> running (most at once: ${max}) <span class="key waitline"></span> ready, waiting for a slot${
    limit === undefined ? '' : ` <span class="key limitline"></span> --parallelism ${limit}`
  }</p>
<div class="chart"><span class="ymax">${top}</span><svg viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" role="img" aria-label="units running over time">
<path class="running" d="${steps('running')}" vector-effect="non-scaling-stroke"/>
<path class="waiting" d="${steps('waiting')}" vector-effect="non-scaling-stroke"/>
${limitLine}</svg></div></section>`;
}

function problems(model: ReportModel): string {
  // Failures first: they are what to look at; skips follow the failure they name.
  const order = (row: ReportRow): number =>
    row.status === 'failed' ? 0 : row.status === 'interrupted' ? 1 : row.status === 'skipped' ? 3 : 2;
  const rows = model.rows
    .filter((row) => ['failed', 'skipped', 'interrupted'].includes(row.status) || row.recovered)
    .sort((a, b) => order(a) - order(b) || cmp(a.id, b.id));
  if (rows.length === 0) return '<section id="problems"><h2>Failures and skips</h2><p>None.</p></section>';
  const body = rows
    .map((row) => {
      const why =
        row.status === 'skipped'
          ? `${esc(row.skip_reason ?? 'skipped')}${row.skipped_because ? ` after <code>${esc(row.skipped_because)}</code>` : ''}`
          : row.status === 'failed' || row.status === 'interrupted'
            ? `${esc(row.reason ?? row.status)}${row.error ? `: <span class="error">${esc(row.error)}</span>` : ''}`
            : `recovered by ${esc(row.recovered ?? '')}`;
      const log = row.log_href ? `<a class="log" href="${esc(row.log_href)}">${esc(row.log ?? row.log_href)}</a>` : '-';
      return `<tr data-id="${esc(row.id)}" class="s-${esc(row.status)}"><td><code>${esc(row.id)}</code>${row.optional ? ' <span class="badge optional">optional</span>' : ''}</td><td>${esc(row.status)}</td><td class="reason">${why}</td><td>${row.status === 'skipped' ? '-' : log}</td></tr>`;
    })
    .join('\n');
  return `<section id="problems"><h2>Failures and skips</h2>
<table><colgroup><col style="width:30%"><col style="width:10%"><col style="width:35%"><col style="width:25%"></colgroup>
<thead><tr><th>unit</th><th>result</th><th>reason</th><th>log</th></tr></thead><tbody>
${body}</tbody></table></section>`;
}

function history(model: ReportModel): string {
  const rows = model.rows.filter((row) => row.history_ms !== undefined && row.duration_ms !== undefined);
  if (rows.length === 0) return '';
  rows.sort((a, b) => b.duration_ms! / b.history_ms! - a.duration_ms! / a.history_ms! || cmp(a.id, b.id));
  const slower = rows.filter((row) => row.slower).length;
  const body = rows
    .map((row) => {
      const change = row.duration_ms! - row.history_ms!;
      const ratio = row.history_ms! > 0 ? `${((100 * change) / row.history_ms!).toFixed(0)}%` : '-';
      return `<tr data-id="${esc(row.id)}"${row.slower ? ' class="slower"' : ''}><td><code>${esc(row.id)}</code></td><td>${formatMs(row.duration_ms!)}</td><td>${formatMs(row.history_ms!)}</td><td>${change >= 0 ? '+' : '-'}${formatMs(Math.abs(change))} (${change >= 0 ? '+' : ''}${ratio})</td><td>${row.slower ? '<span class="badge slower">slower</span>' : ''}</td></tr>`;
    })
    .join('\n');
  return `<section id="history"><h2>Against history</h2>
<p>${slower} unit${slower === 1 ? '' : 's'} took more than ${SLOWER_FACTOR}× their earlier duration (and by at least ${formatMs(SLOWER_MIN_MS)}).</p>
<details${slower > 0 ? ' open' : ''}><summary>${rows.length} units with history</summary>
<table><thead><tr><th>unit</th><th>this run</th><th>before</th><th>change</th><th></th></tr></thead><tbody>
${body}</tbody></table></details></section>`;
}

function park(model: ReportModel): string {
  if (model.kind !== 'park') return '';
  const steps = model.rows
    .map(
      (row) =>
        `<tr data-id="${esc(row.id)}" class="s-${esc(row.status)}"><td>${esc(row.group)}</td><td><code>${esc(row.id.split('/').slice(2).join('/'))}</code></td><td>${esc(row.status)}</td><td>${row.duration_ms === undefined ? '-' : formatMs(row.duration_ms)}</td><td>${esc(row.error ?? row.detail ?? row.reason ?? '')}</td></tr>`,
    )
    .join('\n');
  const sizes = model.sizes
    .map((size) => {
      const groups = Object.entries(size.node_groups)
        .map(([name, s]) => `<code>${esc(name)}</code> ${s.min}/${s.max}/${s.desired}`)
        .join(', ');
      return `<tr><td>${esc(size.env)}</td><td>${groups || '-'}</td><td>${size.karpenter_nodepools}</td><td>${size.bastions}</td><td>${size.argocd_apps}</td></tr>`;
    })
    .join('\n');
  return `<section id="park"><h2>Steps</h2>
<table><thead><tr><th>environment</th><th>step</th><th>result</th><th>duration</th><th>detail</th></tr></thead><tbody>
${steps}</tbody></table>
${
  sizes
    ? `<h3>Recorded sizes (the park record up restores)</h3>
<table><thead><tr><th>environment</th><th>node groups (min/max/desired)</th><th>Karpenter NodePools</th><th>bastions</th><th>Argo CD apps</th></tr></thead><tbody>
${sizes}</tbody></table>`
    : ''
}</section>`;
}

function lockdown(model: ReportModel): string {
  const record = model.lockdown;
  if (!record) return '';
  const body = record.steps
    .map(
      (step) =>
        `<tr class="s-${esc(step.status)}"><td><code>${esc(step.id)}</code></td><td>${esc(step.status)}</td><td>${esc(step.ended_at ?? '-')}</td><td>${esc(step.error ?? '')}</td></tr>`,
    )
    .join('\n');
  return `<section id="lockdown"><h2>${record.direction === 'lock' ? 'Lockdown' : 'Unlock'}: ${esc(record.status)}</h2>
<table><thead><tr><th>step</th><th>result</th><th>ended</th><th>error</th></tr></thead><tbody>
${body}</tbody></table></section>`;
}

const CSS = `
:root{--run:#3b82f6;--ok:#16a34a;--fail:#dc2626;--skip:#9ca3af;--wait:#fbbf24;--crit:#7c3aed;--fg:#111827;--muted:#6b7280;--line:#e5e7eb}
*{box-sizing:border-box}
body{margin:0;padding:16px 20px;font:13px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:#fff;overflow-x:hidden}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}h3{font-size:14px}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
.meta,.note{color:var(--muted);margin:2px 0}.warn{color:var(--fail)}
.status{font-size:13px;padding:2px 8px;border-radius:10px;background:var(--line);vertical-align:middle}
.status.s-completed{background:#dcfce7}.status.s-failed{background:#fee2e2}.status.s-running{background:#dbeafe}.status.s-interrupted{background:#fef3c7}
.cards{display:flex;flex-wrap:wrap;gap:8px;margin:10px 0}
.card{border:1px solid var(--line);border-radius:6px;padding:6px 12px;min-width:130px}
.card b{display:block;font-size:18px}.card span{color:var(--muted)}
.count{margin-right:8px}
.legend{color:var(--muted);display:flex;flex-wrap:wrap;align-items:center;gap:6px}
.key{display:inline-block;width:14px;height:10px;border-radius:2px}
.key.wait{background:repeating-linear-gradient(45deg,var(--wait) 0 3px,#fff 3px 6px)}.key.run{background:var(--ok)}
.key.crit{background:#fff;outline:2px solid var(--crit)}.key.fail{background:var(--fail)}.key.skip{background:var(--skip)}
.key.waitline{background:var(--wait)}.key.limitline{border-top:2px dashed var(--fail);height:0}
.filter{margin-left:auto}
.row,.axis-row{display:grid;grid-template-columns:minmax(0,340px) minmax(0,1fr);align-items:center;min-height:18px}
.row:hover{background:#f9fafb}.row.hidden{display:none}
.label{display:flex;gap:4px;align-items:center;overflow:hidden;white-space:nowrap;padding-right:8px}
.label .id{overflow:hidden;text-overflow:ellipsis;min-width:0;flex:0 1 auto}
.row.on-path .label .id{color:var(--crit);font-weight:600}
.badge{flex:none;font-size:10px;padding:0 4px;border-radius:3px;background:var(--line);color:#374151}
.badge.optional{background:#e0e7ff}.badge.recovered{background:#fef3c7}.badge.slower{background:#fee2e2;color:#991b1b}.badge.kept{background:#ecfccb}
.track{position:relative;height:14px;border-left:1px solid var(--line);background:linear-gradient(90deg,#fafafa,#fafafa)}
.axis{position:relative;height:18px;border-bottom:1px solid var(--line)}
.tick{position:absolute;top:0;font-size:10px;color:var(--muted);transform:translateX(-50%);white-space:nowrap}
.tick:first-child{transform:none}
.bar,.waitbar{position:absolute;top:2px;height:10px;min-width:2px;border-radius:2px}
.waitbar{background:repeating-linear-gradient(45deg,var(--wait) 0 3px,#fff 3px 6px);opacity:.8}
.bar{background:var(--ok)}.bar.s-running{background:var(--run)}.bar.s-failed{background:var(--fail)}
.bar.s-interrupted{background:#f59e0b}.bar.s-skipped,.bar.s-pending{background:var(--skip)}
.bar.critical{outline:2px solid var(--crit);outline-offset:0;z-index:1}
.bar.live{background-image:linear-gradient(90deg,transparent 60%,rgba(255,255,255,.5))}
.none{position:absolute;left:4px;top:0;font-size:10px;color:var(--muted);white-space:nowrap}
.group{font-weight:600;margin-top:8px;border-bottom:1px solid var(--line)}
.chart{position:relative;border:1px solid var(--line);border-radius:4px;padding:4px 4px 4px 28px}
.chart svg{display:block;width:100%;height:160px}
.chart .ymax{position:absolute;left:6px;top:4px;color:var(--muted);font-size:11px}
path.running{fill:rgba(22,163,74,.25);stroke:var(--ok);stroke-width:1.5}
path.waiting{fill:none;stroke:var(--wait);stroke-width:1.5}
line.limit{stroke:var(--fail);stroke-dasharray:6 4;stroke-width:1.5}
table{border-collapse:collapse;width:100%;table-layout:fixed}
th,td{border-bottom:1px solid var(--line);padding:3px 6px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
tr.s-failed td:nth-child(2){color:var(--fail);font-weight:600}tr.slower td{background:#fff7f7}
.error{font-family:ui-monospace,monospace;font-size:12px}
`;

// Filters the timeline as one types (by id or status). No network, no external script.
const SCRIPT = `
(function(){
  var input=document.getElementById('filter');
  if(!input)return;
  var rows=Array.prototype.slice.call(document.querySelectorAll('#rows .row'));
  input.addEventListener('input',function(){
    var q=input.value.trim().toLowerCase();
    rows.forEach(function(r){
      var hit=!q||r.getAttribute('data-id').toLowerCase().indexOf(q)>=0||r.getAttribute('data-status')===q;
      r.classList.toggle('hidden',!hit);
    });
  });
})();
`;
