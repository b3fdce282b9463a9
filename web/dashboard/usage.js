import { call } from './api.js';
import { toCsv } from './csv.js';
import { h } from './dom.js';

const RANGES = [
  { value: '1h', label: 'Last hour', ms: 3_600_000 },
  { value: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { value: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
];
const METRICS = [
  { field: 'requests', title: 'Requests' },
  { field: 'total_tokens', title: 'Tokens' },
  { field: 'errors', title: 'Errors' },
  { field: 'avg_latency_ms', title: 'Mean latency (ms)' },
];
const COLORS = [
  '#2563eb',
  '#dc2626',
  '#16a34a',
  '#9333ea',
  '#ea580c',
  '#0891b2',
  '#be185d',
  '#4d7c0f',
];
const state = { range: '24h', groupBy: 'key', endUser: '' };
const CSV_HEADER = [
  'time',
  'group_by',
  'group',
  'requests',
  'errors',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'avg_latency_ms',
  'cost_usd',
];
/** The Group choices: the series of the API answer each reads, and its column heading. */
const GROUPS = {
  key: { series: 'by_key', option: 'Per key', column: 'Key' },
  model: { series: 'by_model', option: 'Per model', column: 'Model' },
  endpoint: { series: 'by_endpoint', option: 'Per endpoint', column: 'Endpoint' },
};

/** Adds decimal strings of US dollars exactly (BigInt pico-dollars); null when all are null. */
function sumUsd(values) {
  let total = null;
  for (const value of values) {
    if (value === null || value === undefined) continue;
    const [whole, fraction = ''] = value.split('.');
    total = (total ?? 0n) + BigInt(whole + fraction.padEnd(12, '0').slice(0, 12));
  }
  if (total === null) return null;
  const digits = total.toString().padStart(13, '0');
  const fraction = digits.slice(-12).replace(/0+$/, '');
  return `${digits.slice(0, -12)}${fraction ? `.${fraction}` : ''}`;
}

/** Per-group series on every bucket of the range (seconds), 0 where a group had no requests. */
function alignedData(data, groups, field) {
  const step = data.bucket_seconds;
  const times = [];
  for (
    let t = Math.floor(Date.parse(data.from) / 1000 / step) * step;
    t < Date.parse(data.to) / 1000;
    t += step
  )
    times.push(t);
  const columns = groups.map((g) => {
    const byTime = new Map(g.points.map((p) => [Date.parse(p.t) / 1000, p[field]]));
    return times.map((t) => byTime.get(t) ?? (field === 'avg_latency_ms' ? null : 0));
  });
  return [times, ...columns];
}

function chart(container, title, data, groups, field) {
  const width = Math.max(320, Math.min(container.clientWidth || 900, 1100) - 32);
  const options = {
    title,
    width,
    height: 220,
    series: [
      {},
      ...groups.map((g, i) => ({
        label: g.name,
        stroke: COLORS[i % COLORS.length],
        width: 2,
        points: { show: true },
      })),
    ],
    scales: {
      x: { time: true, range: [Date.parse(data.from) / 1000, Date.parse(data.to) / 1000] },
      y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
    },
    axes: [{}, { size: 60 }],
  };
  return new window.uPlot(options, alignedData(data, groups, field), container);
}

/** Every series of the answer, one line per group and bucket; cost_usd empty when unknown. */
function usageCsv(data) {
  const rows = [];
  for (const [groupBy, { series }] of Object.entries(GROUPS))
    for (const g of data[series])
      for (const p of g.points)
        rows.push([
          p.t,
          groupBy,
          g.name,
          p.requests,
          p.errors,
          p.prompt_tokens,
          p.completion_tokens,
          p.total_tokens,
          p.avg_latency_ms,
          // Empty, not 0, when no request of the bucket had a price: the cost is unknown.
          p.cost_usd,
        ]);
  return toCsv(CSV_HEADER, rows, ['cost_usd']);
}

export async function renderUsage({ show, onError }) {
  const range = RANGES.find((r) => r.value === state.range);
  const to = new Date();
  const from = new Date(to.getTime() - range.ms);
  const query = { from: from.toISOString(), to: to.toISOString() };
  // One end user's requests only (docs/spend.md, "Spend by end user"); empty: everyone's.
  if (state.endUser) query.end_user = state.endUser;
  const data = await call('GET', `/usage?${new URLSearchParams(query)}`);
  const group = GROUPS[state.groupBy];
  const groups = data[group.series];
  const rerender = () => renderUsage({ show, onError }).catch(onError);

  const rangeSelect = h(
    'select',
    {
      id: 'usage-range',
      onchange: (e) => {
        state.range = e.target.value;
        rerender();
      },
    },
    RANGES.map((r) => h('option', { value: r.value, selected: r.value === state.range }, r.label)),
  );
  const groupSelect = h(
    'select',
    {
      id: 'usage-group',
      onchange: (e) => {
        state.groupBy = e.target.value;
        rerender();
      },
    },
    Object.entries(GROUPS).map(([value, choice]) =>
      h('option', { value, selected: state.groupBy === value }, choice.option),
    ),
  );
  const endUserInput = h('input', {
    id: 'usage-end-user',
    type: 'search',
    maxlength: 256,
    placeholder: 'All end users',
    value: state.endUser,
    onchange: (e) => {
      state.endUser = e.target.value.trim();
      rerender();
    },
  });
  const csvUrl = URL.createObjectURL(new Blob([usageCsv(data)], { type: 'text/csv' }));
  const controls = h(
    'div',
    { class: 'row' },
    h('label', { for: 'usage-range' }, 'Time range'),
    rangeSelect,
    h('label', { for: 'usage-group' }, 'Group'),
    groupSelect,
    h('label', { for: 'usage-end-user' }, 'End user'),
    endUserInput,
    h(
      'a',
      {
        href: csvUrl,
        download: `gateway-usage-${from.toISOString().slice(0, 10)}.csv`,
        class: 'button secondary',
      },
      'Export CSV',
    ),
  );

  const totals = groups.map((g) => {
    const sum = (field) => g.points.reduce((total, p) => total + p[field], 0);
    const requests = sum('requests');
    const latency = requests
      ? Math.round(g.points.reduce((t, p) => t + p.avg_latency_ms * p.requests, 0) / requests)
      : 0;
    return h(
      'tr',
      {},
      h('th', { scope: 'row' }, g.name),
      h('td', {}, requests),
      h('td', {}, sum('total_tokens')),
      h('td', {}, sum('errors')),
      h('td', {}, latency),
      h('td', {}, sumUsd(g.points.map((p) => p.cost_usd)) ?? '–'),
    );
  });
  const chartBoxes = METRICS.map(() => h('div', { class: 'chart' }));
  show(
    h('h1', {}, 'Usage'),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'usage-title' },
      h(
        'h2',
        { id: 'usage-title' },
        `${range.label}, ${group.option.toLowerCase()}`,
        state.endUser ? `, end user ${state.endUser}` : '',
      ),
      controls,
      h(
        'table',
        { id: 'usage-totals' },
        h('caption', {}, `Totals, in buckets of ${Math.round(data.bucket_seconds / 60)} min`),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            [group.column, 'Requests', 'Tokens', 'Errors', 'Mean latency (ms)', 'Cost (USD)'].map(
              (c) => h('th', { scope: 'col' }, c),
            ),
          ),
        ),
        h(
          'tbody',
          {},
          totals.length
            ? totals
            : h('tr', {}, h('td', { colspan: 6 }, 'No requests in this range.')),
        ),
      ),
    ),
    h('section', { class: 'card charts', 'aria-label': 'Usage charts' }, chartBoxes),
  );
  if (groups.length)
    METRICS.forEach((metric, i) => chart(chartBoxes[i], metric.title, data, groups, metric.field));
}
