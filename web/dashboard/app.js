import { ApiError, restoreSession, signIn, signInOptions, signOut } from './api.js';
import { renderAudit } from './audit.js';
import { h, toast } from './dom.js';
import { renderKeys } from './keys.js';
import { renderOverview } from './overview.js';
import { renderUsage } from './usage.js';

const main = document.getElementById('main');
const header = document.querySelector('header.top');
// Each page and the permission (from GET /dashboard/api/session) that shows it.
const pages = {
  overview: { render: renderOverview, permission: 'overview' },
  keys: { render: renderKeys, permission: 'keys' },
  usage: { render: renderUsage, permission: 'usage' },
  audit: { render: renderAudit, permission: 'audit' },
};
const SIGN_IN_ERRORS = {
  expired: 'The sign-in took too long or was already used. Try again.',
  refused: 'The identity provider’s answer could not be verified. Try again.',
  provider: 'The identity provider did not sign you in.',
  unavailable: 'The identity provider cannot be reached right now. Try again later.',
};
let session = null;

function allowed(name) {
  return Boolean(session?.permissions?.[pages[name].permission]);
}

function currentPage() {
  const name = location.hash.replace(/^#\//, '');
  if (pages[name] && allowed(name)) return name;
  return Object.keys(pages).find(allowed);
}

/** Replaces the page; absent parts (null, undefined, false) are left out, never written as text. */
function show(...nodes) {
  main.replaceChildren(
    ...nodes.filter((node) => node !== null && node !== undefined && node !== false),
  );
}

async function renderSignIn(message) {
  header.hidden = true;
  const options = await signInOptions();
  const error = h('p', { class: 'error', role: 'alert' }, message ?? '');
  const sso = options.sso
    ? h('a', { class: 'button', href: '/dashboard/auth/login', id: 'sso' }, 'Sign in with SSO')
    : null;
  const card = h(
    'div',
    { class: 'card narrow', 'aria-labelledby': 'sign-in-title' },
    h('h1', { id: 'sign-in-title' }, 'Sign in to the gateway dashboard'),
    sso,
    options.sso && options.admin_key
      ? h('p', { class: 'hint or' }, 'or, with the admin key')
      : null,
    options.admin_key ? adminKeyForm(error) : error,
  );
  show(card);
  (card.querySelector('#admin-key') ?? sso)?.focus();
}

function adminKeyForm(error) {
  const input = h('input', {
    id: 'admin-key',
    name: 'admin-key',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const form = h(
    'form',
    { class: 'stack' },
    h('label', { for: 'admin-key' }, 'Admin key'),
    input,
    h(
      'p',
      { class: 'hint' },
      'The value of ADMIN_API_KEY. It is exchanged for a session cookie and not stored in the browser.',
    ),
    error,
    h('button', { type: 'submit' }, 'Sign in'),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    try {
      await signIn(input.value);
      input.value = '';
      session = await restoreSession();
      await route();
    } catch (failure) {
      error.textContent =
        failure.status === 401 ? 'That admin key is not correct.' : failure.message;
    }
  });
  return form;
}

function renderHeader() {
  header.hidden = false;
  const who = session.user ? (session.user.name ?? session.user.email) : 'Admin key';
  document.getElementById('who').textContent =
    `${who}${session.roles.length ? ` (${session.roles.join(', ')})` : ''}`;
  for (const link of header.querySelectorAll('nav a')) {
    const name = link.getAttribute('href').replace(/^#\//, '');
    link.hidden = !allowed(name);
  }
}

function renderNoAccess() {
  show(
    h(
      'section',
      { class: 'card narrow', 'aria-labelledby': 'no-access-title' },
      h('h1', { id: 'no-access-title' }, 'No access'),
      h(
        'p',
        {},
        `You are signed in as ${session.user?.email ?? session.user?.name ?? 'an unknown user'}, but none of your groups gives a role in this gateway.`,
      ),
      h('p', { class: 'hint' }, 'Ask an administrator to map one of your groups in OIDC_ROLES.'),
    ),
  );
}

async function route() {
  if (!session) return renderSignIn();
  renderHeader();
  const page = currentPage();
  if (!page) return renderNoAccess();
  for (const link of header.querySelectorAll('nav a')) {
    if (link.getAttribute('href') === `#/${page}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  try {
    await pages[page].render({ show, onError: handleError, session });
  } catch (error) {
    handleError(error);
  }
}

/** Errors from any page: an expired session goes back to sign-in, the rest are shown. */
function handleError(error) {
  if (error instanceof ApiError && error.status === 401) {
    session = null;
    return renderSignIn('Your session ended. Sign in again.');
  }
  if (error instanceof ApiError && error.status === 429)
    return toast(`Too many requests: retry in ${error.retryAfter ?? 'a few'} s.`);
  toast(error.message);
}

document.getElementById('sign-out').addEventListener('click', async () => {
  let logoutUrl = null;
  try {
    logoutUrl = await signOut();
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) return handleError(error);
  }
  session = null;
  // After an SSO sign-in, the provider ends its own session too and sends the browser back.
  if (logoutUrl) return location.assign(logoutUrl);
  renderSignIn('Signed out.').catch(handleError);
});

window.addEventListener('hashchange', () => {
  route().then(() => main.focus());
});

// The SSO callback comes back with ?sign_in_error=... when it refused the sign-in.
const failure = new URLSearchParams(location.search).get('sign_in_error');
if (failure) history.replaceState(null, '', `${location.pathname}${location.hash}`);

restoreSession()
  .then((restored) => {
    session = restored;
    return session ? route() : renderSignIn(SIGN_IN_ERRORS[failure] ?? undefined);
  })
  .catch(handleError);
