import { call } from './api.js';
import { formatDate, h } from './dom.js';

const ACTIONS = [
  'key.create',
  'key.update',
  'key.rotate',
  'key.revoke',
  'key.seed',
  'team.create',
  'team.update',
  'team.delete',
  'config.reload',
  'auth.sign_in',
  'auth.sign_in_failed',
  'auth.sign_out',
];
const PER_PAGE = 50;
// Filters as typed; `cursors` holds the cursor of each page shown so far, for "Newer".
const state = { from: '', until: '', actor: '', action: '', target: '', cursors: [null] };

/** The day after `day` (YYYY-MM-DD): the API's `to` is the first day excluded. */
function nextDay(day) {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

function query(extra = {}) {
  const params = new URLSearchParams();
  if (state.from) params.set('from', state.from);
  if (state.until) params.set('to', nextDay(state.until));
  for (const name of ['actor', 'action', 'target']) if (state[name]) params.set(name, state[name]);
  for (const [name, value] of Object.entries(extra)) if (value) params.set(name, value);
  return params;
}

function actorText(actor) {
  if (actor.type === 'user') return actor.email ?? actor.id;
  if (actor.type === 'cli') return `CLI (${actor.id ?? 'unknown user'})`;
  return { admin_key: 'Admin key', system: 'Gateway', anonymous: 'Anonymous' }[actor.type];
}

function value(v) {
  return v === null || v === undefined
    ? '–'
    : typeof v === 'object'
      ? JSON.stringify(v)
      : String(v);
}

const NOT_SHOWN = new Set(['object', 'id', 'name', 'created_at']);

/**
 * "field: before → after" per changed field. For a creation or a deletion, the fields that hold
 * something (the full row is in the API's answer and the CSV).
 */
function changeText(entry) {
  const before = entry.before ?? {};
  const after = entry.after ?? {};
  if (!entry.before || !entry.after) {
    const row = entry.after ?? entry.before ?? {};
    return Object.entries(row)
      .filter(([f, v]) => !NOT_SHOWN.has(f) && v !== null && !(Array.isArray(v) && !v.length))
      .map(([f, v]) => `${f}: ${value(v)}`)
      .join('\n');
  }
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return fields.map((f) => `${f}: ${value(before[f])} → ${value(after[f])}`).join('\n');
}

function field(label, input) {
  return h('div', { class: 'field' }, h('label', { for: input.id }, label), input);
}

export async function renderAudit({ show, onError }) {
  const cursor = state.cursors.at(-1);
  const page = await call('GET', `/audit?${query({ limit: String(PER_PAGE), cursor })}`);
  const rerender = () => renderAudit({ show, onError }).catch(onError);

  const inputs = {
    from: h('input', { id: 'audit-from', type: 'date', value: state.from }),
    until: h('input', { id: 'audit-until', type: 'date', value: state.until }),
    actor: h('input', {
      id: 'audit-actor',
      value: state.actor,
      placeholder: 'e-mail, cli, admin_key',
    }),
    action: h(
      'select',
      { id: 'audit-action' },
      h('option', { value: '' }, 'Any action'),
      ACTIONS.map((a) => h('option', { value: a, selected: state.action === a }, a)),
    ),
    target: h('input', { id: 'audit-target', value: state.target, placeholder: 'key or team' }),
  };
  const filters = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Audit filters' },
    field('From day', inputs.from),
    field('To day (included)', inputs.until),
    field('Actor', inputs.actor),
    field('Action', inputs.action),
    field('Target', inputs.target),
    h('button', { type: 'submit' }, 'Filter'),
  );
  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    for (const name of Object.keys(inputs)) state[name] = inputs[name].value.trim();
    state.cursors = [null];
    rerender();
  });

  const rows = page.data.map((entry) =>
    h(
      'tr',
      {},
      h('td', {}, formatDate(entry.created_at)),
      h('td', {}, actorText(entry.actor)),
      h('td', {}, h('code', {}, entry.action)),
      h('td', {}, entry.target.name ?? entry.target.type),
      h('td', { class: 'change' }, changeText(entry)),
      h('td', {}, entry.source_ip ?? '–'),
      h('td', {}, entry.request_id ? h('code', {}, entry.request_id) : '–'),
    ),
  );
  const pager = h(
    'nav',
    { 'aria-label': 'Audit pages', class: 'row' },
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        disabled: state.cursors.length <= 1,
        onclick: () => {
          state.cursors.pop();
          rerender();
        },
      },
      'Newer',
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        disabled: !page.has_more,
        onclick: () => {
          state.cursors.push(page.next_cursor);
          rerender();
        },
      },
      'Older',
    ),
    h(
      'a',
      {
        class: 'button secondary',
        href: `/dashboard/api/audit?${query({ format: 'csv' })}`,
        download: 'gateway-audit.csv',
      },
      'Export CSV',
    ),
  );

  show(
    h('h1', {}, 'Audit'),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'audit-title' },
      h('h2', { id: 'audit-title' }, 'Changes and sign-ins, newest first'),
      filters,
      h(
        'div',
        { class: 'scroll' },
        h(
          'table',
          { id: 'audit-log' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Time', 'Actor', 'Action', 'Target', 'Change', 'Source IP', 'Request ID'].map((c) =>
                h('th', { scope: 'col' }, c),
              ),
            ),
          ),
          h(
            'tbody',
            {},
            rows.length ? rows : h('tr', {}, h('td', { colspan: 7 }, 'No entries match.')),
          ),
        ),
      ),
      pager,
    ),
  );
}
