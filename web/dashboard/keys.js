import { call } from './api.js';
import { copyButton, formatDate, h, toast } from './dom.js';

const PER_PAGE = 20;
const state = { search: '', page: 1 };

/** A key's own limits, e.g. "60 rpm, 5000 tokens/day, $2.50/day"; absent ones are not shown. */
function limits(key) {
  const parts = [];
  if (key.rpm_limit != null) parts.push(`${key.rpm_limit} rpm`);
  if (key.tpm_limit != null) parts.push(`${key.tpm_limit} tpm`);
  // The API sets a budget with its period; a key from before that rule uses KEY_BUDGET_PERIOD.
  const per = key.budget_period ? `/${key.budget_period}` : ' per default period';
  if (key.token_budget != null) parts.push(`${key.token_budget} tokens${per}`);
  if (key.budget_usd != null) parts.push(`$${key.budget_usd}${per}`);
  return parts.length ? parts.join(', ') : 'defaults';
}

/** The one-time secret of a created or rotated key. */
function secretPanel(title, secret) {
  return h(
    'section',
    { class: 'card secret', 'aria-labelledby': 'secret-title', tabindex: '-1' },
    h('h2', { id: 'secret-title' }, title),
    h('p', {}, 'Copy it now: it is shown only once and cannot be recovered.'),
    h(
      'div',
      { class: 'row' },
      h('code', { id: 'new-secret', class: 'big' }, secret),
      copyButton('Copy secret', secret),
    ),
  );
}

function createForm(models, create, onCreated, onError) {
  const field = (label, input) =>
    h('div', { class: 'field' }, h('label', { for: input.id }, label), input);
  const name = h('input', {
    id: 'key-name',
    name: 'name',
    required: true,
    maxlength: 200,
    autocomplete: 'off',
  });
  const rpm = h('input', { id: 'key-rpm', type: 'number', min: 0, inputmode: 'numeric' });
  const tpm = h('input', { id: 'key-tpm', type: 'number', min: 0, inputmode: 'numeric' });
  const budget = h('input', { id: 'key-budget', type: 'number', min: 1, inputmode: 'numeric' });
  // Dollars as the API takes them: a decimal string with at most 6 places (docs/spend.md).
  const budgetUsd = h('input', {
    id: 'key-budget-usd',
    inputmode: 'decimal',
    pattern: '\\d+(\\.\\d{1,6})?',
    title: 'US dollars, e.g. 25.50',
    autocomplete: 'off',
  });
  // The periods the API takes, from the API; sent only with a token or dollar budget.
  const period = h(
    'select',
    { id: 'key-period' },
    create.budget_periods.map((p) => h('option', { value: p, selected: p === 'month' }, p)),
  );
  // A team admin creates keys in their teams, a member without a team (docs/sso.md, "Roles").
  const team = h(
    'select',
    { id: 'key-team' },
    create.without_team ? h('option', { value: '' }, 'No team') : null,
    create.teams.map((t) => h('option', { value: t.id }, t.name)),
  );
  const expires = h('input', { id: 'key-expires', type: 'datetime-local' });
  const modelBoxes = models.map((model) =>
    h('input', { type: 'checkbox', value: model, id: `model-${model}` }),
  );
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'create-title' },
    h('h2', { id: 'create-title' }, 'Create a key'),
    h(
      'div',
      { class: 'grid' },
      field('Name', name),
      field('Requests per minute', rpm),
      field('Tokens per minute', tpm),
      field('Token budget', budget),
      field('Dollar budget (USD)', budgetUsd),
      field('Budget period', period),
      field('Expires at', expires),
      create.teams.length ? field('Team', team) : null,
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Allowed models (none checked: all)'),
      modelBoxes.map((box) => h('label', { class: 'check', for: box.id }, box, box.value)),
    ),
    h('button', { type: 'submit' }, 'Create key'),
  );
  const number = (input) => (input.value === '' ? undefined : Number(input.value));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const usd = budgetUsd.value.trim() || undefined;
    const tokens = number(budget);
    try {
      const created = await call('POST', '/keys', {
        name: name.value.trim(),
        rpm_limit: number(rpm),
        tpm_limit: number(tpm),
        token_budget: tokens,
        budget_usd: usd,
        budget_period: tokens !== undefined || usd !== undefined ? period.value : undefined,
        team_id: team.value || undefined,
        expires_at: expires.value ? new Date(expires.value).toISOString() : undefined,
        allowed_models: modelBoxes.filter((box) => box.checked).map((box) => box.value),
      });
      onCreated(created);
    } catch (error) {
      onError(error);
    }
  });
  return form;
}

export async function renderKeys({ show, onError }, secret) {
  const query = new URLSearchParams({ page: String(state.page), per_page: String(PER_PAGE) });
  if (state.search) query.set('search', state.search);
  const list = await call('GET', `/keys?${query}`);
  const rerender = (newSecret) => renderKeys({ show, onError }, newSecret).catch(onError);

  const search = h('input', { id: 'key-search', type: 'search', value: state.search });
  const searchForm = h(
    'form',
    { role: 'search', class: 'row' },
    h('label', { for: 'key-search' }, 'Search keys'),
    search,
    h('button', { type: 'submit', class: 'secondary' }, 'Search'),
  );
  searchForm.addEventListener('submit', (event) => {
    event.preventDefault();
    state.search = search.value.trim();
    state.page = 1;
    rerender();
  });

  const act = async (question, method, path, body, after) => {
    if (!window.confirm(question)) return;
    try {
      const result = await call(method, path, body);
      after(result);
    } catch (error) {
      onError(error);
    }
  };

  const rows = list.data.map((key) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row' }, key.name),
      h('td', {}, h('code', {}, `${key.key_prefix}…`)),
      h('td', {}, h('span', { class: `badge ${key.status}` }, key.status)),
      h('td', {}, key.team_name ?? '–'),
      h('td', {}, limits(key)),
      h('td', {}, key.allowed_models.length ? key.allowed_models.join(', ') : 'all'),
      h('td', {}, formatDate(key.expires_at)),
      h('td', {}, formatDate(key.last_used_at)),
      h(
        'td',
        { class: 'actions' },
        key.status === 'revoked' || !key.can_write
          ? null
          : h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                'aria-label': `Rotate ${key.name}`,
                onclick: () =>
                  act(
                    `Rotate ${key.name}? The old secret keeps working for one hour.`,
                    'POST',
                    `/keys/${key.id}/rotate`,
                    {},
                    (rotated) =>
                      rerender({ title: `New secret for ${rotated.name}`, secret: rotated.secret }),
                  ),
              },
              'Rotate',
            ),
        key.status === 'revoked' || !key.can_write
          ? null
          : h(
              'button',
              {
                type: 'button',
                class: 'danger',
                'aria-label': `Revoke ${key.name}`,
                onclick: () =>
                  act(
                    `Revoke ${key.name}? Clients using it are refused from now on.`,
                    'POST',
                    `/keys/${key.id}/revoke`,
                    undefined,
                    () => {
                      toast(`${key.name} revoked.`);
                      rerender();
                    },
                  ),
              },
              'Revoke',
            ),
      ),
    ),
  );

  const pages = Math.max(1, Math.ceil(list.total / list.per_page));
  const pager = h(
    'nav',
    { 'aria-label': 'Key pages', class: 'row' },
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        disabled: state.page <= 1,
        onclick: () => {
          state.page -= 1;
          rerender();
        },
      },
      'Previous page',
    ),
    h('span', {}, `Page ${list.page} of ${pages} (${list.total} keys)`),
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        disabled: state.page >= pages,
        onclick: () => {
          state.page += 1;
          rerender();
        },
      },
      'Next page',
    ),
  );

  const panel = secret ? secretPanel(secret.title, secret.secret) : null;
  show(
    h('h1', {}, 'Keys'),
    panel,
    list.create.allowed
      ? createForm(
          list.models,
          list.create,
          (created) => rerender({ title: `Secret of ${created.name}`, secret: created.secret }),
          onError,
        )
      : null,
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'list-title' },
      h('h2', { id: 'list-title' }, 'Virtual keys'),
      searchForm,
      h(
        'div',
        { class: 'scroll' },
        h(
          'table',
          {},
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              [
                'Name',
                'Prefix',
                'Status',
                'Team',
                'Limits',
                'Models',
                'Expires',
                'Last used',
                'Actions',
              ].map((c) => h('th', { scope: 'col' }, c)),
            ),
          ),
          h('tbody', {}, rows.length ? rows : h('tr', {}, h('td', { colspan: 9 }, 'No keys.'))),
        ),
      ),
      pager,
    ),
  );
  panel?.focus();
}
