// `npm run chart:cadence`: draws docs/cadence.svg from the cadence simulation itself (the real
// poller of dist/ on a virtual clock, un-jittered): the queries along a 30 s, a 60 s and a
// 300 s task for our default cadence, fixed 3 s and fixed 6 s polling, and when each notices
// the end. Hand-written SVG, no dependency.
import { writeFileSync } from 'node:fs';
import { plannedQueries, SCHEDULES } from '../lib/cadence-sim.ts';

const TASKS_S = [30, 60, 300];
const WIDTH = 960;
const LEFT = 150;
const RIGHT = 230;
const ROW = 26;
const PANEL_TOP = 34;
const PANEL_GAP = 30;
const COLORS = ['#2563eb', '#9ca3af', '#6b7280'];

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

const parts: string[] = [];
let y = 40;
parts.push(`<text x="16" y="24" font-size="16" font-weight="600">When a wait queries, and when it notices the end (simulated, before jitter)</text>`);
for (const seconds of TASKS_S) {
  const durationMs = seconds * 1000;
  // One at a time: each simulation installs the virtual clock.
  const runs = [];
  for (const schedule of SCHEDULES) runs.push(await plannedQueries(schedule.options, durationMs));
  const span = Math.max(...runs.map((run) => Math.max(...run.queryTimes))) * 1.04;
  const x = (ms: number) => LEFT + ((WIDTH - LEFT - RIGHT) * ms) / span;
  const top = y + PANEL_TOP;
  const bottom = top + ROW * SCHEDULES.length;
  parts.push(`<text x="16" y="${y + 18}" font-size="14" font-weight="600">A ${seconds} s task</text>`);
  // The axis: a tick every tenth of the span, rounded to a readable step.
  const step = [1, 2, 5, 10, 15, 30, 60].find((s) => (span / 1000) / s <= 10) ?? 60;
  for (let t = 0; t * 1000 <= span; t += step) {
    parts.push(`<line x1="${x(t * 1000)}" y1="${top - 6}" x2="${x(t * 1000)}" y2="${bottom}" stroke="#f3f4f6"/>`);
    parts.push(`<text x="${x(t * 1000)}" y="${top - 10}" font-size="10" fill="#6b7280" text-anchor="middle">${t} s</text>`);
  }
  parts.push(`<line x1="${x(durationMs)}" y1="${top - 4}" x2="${x(durationMs)}" y2="${bottom + 2}" stroke="#dc2626" stroke-dasharray="4 3"/>`);
  parts.push(`<text x="${x(durationMs) + 4}" y="${bottom + 14}" font-size="10" fill="#dc2626">task ends</text>`);
  runs.forEach((run, row) => {
    const cy = top + ROW * row + ROW / 2;
    const color = COLORS[row] as string;
    parts.push(`<text x="16" y="${cy + 4}" font-size="12" fill="${row === 0 ? '#111827' : '#4b5563'}">${escape(SCHEDULES[row]!.name)}</text>`);
    parts.push(`<line x1="${LEFT}" y1="${cy}" x2="${x(span)}" y2="${cy}" stroke="#e5e7eb"/>`);
    for (const at of run.queryTimes.slice(0, -1)) parts.push(`<line x1="${x(at)}" y1="${cy - 6}" x2="${x(at)}" y2="${cy + 6}" stroke="${color}" stroke-width="1.5"/>`);
    const noticed = run.queryTimes.at(-1) as number;
    parts.push(`<circle cx="${x(noticed)}" cy="${cy}" r="5" fill="${color}"/>`);
    parts.push(
      `<text x="${WIDTH - RIGHT + 14}" y="${cy + 4}" font-size="12" fill="#111827">${run.queries} queries, noticed +${(run.lagMs / 1000).toFixed(1)} s</text>`,
    );
  });
  y = bottom + PANEL_GAP;
}
parts.push(`<text x="16" y="${y}" font-size="11" fill="#6b7280">Ticks: task queries. Dot: the query that sees the task completed. From bench/charts/cadence-chart.ts (npm run chart:cadence).</text>`);
const height = y + 14;
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif">
<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>
${parts.join('\n')}
</svg>
`;
const out = new URL('../../docs/cadence.svg', import.meta.url);
writeFileSync(out, svg);
console.log(`wrote ${out.pathname}`);
