import { ApiError, restoreSession, signIn, signOut } from './api.js';
import { h, toast } from './dom.js';
import { renderKeys } from './keys.js';
import { renderOverview } from './overview.js';
import { renderUsage } from './usage.js';

const main = document.getElementById('main');
const header = document.querySelector('header.top');
const pages = { overview: renderOverview, keys: renderKeys, usage: renderUsage };
let signedIn = false;

function currentPage() {
  const name = location.hash.replace(/^#\//, '');
  return pages[name] ? name : 'overview';
}

function show(...nodes) {
  main.replaceChildren(...nodes);
}

function renderSignIn(message) {
  header.hidden = true;
  const input = h('input', {
    id: 'admin-key',
    name: 'admin-key',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const error = h('p', { class: 'error', role: 'alert' }, message ?? '');
  const form = h(
    'form',
    { class: 'card narrow', 'aria-labelledby': 'sign-in-title' },
    h('h1', { id: 'sign-in-title' }, 'Sign in to the gateway dashboard'),
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
      signedIn = true;
      input.value = '';
      await route();
    } catch (failure) {
      error.textContent =
        failure.status === 401 ? 'That admin key is not correct.' : failure.message;
    }
  });
  show(form);
  input.focus();
}

async function route() {
  if (!signedIn) return renderSignIn();
  header.hidden = false;
  const page = currentPage();
  for (const link of header.querySelectorAll('nav a')) {
    if (link.getAttribute('href') === `#/${page}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  try {
    await pages[page]({ show, onError: handleError });
  } catch (error) {
    handleError(error);
  }
}

/** Errors from any page: an expired session goes back to sign-in, the rest are shown. */
function handleError(error) {
  if (error instanceof ApiError && error.status === 401) {
    signedIn = false;
    return renderSignIn('Your session ended. Sign in again.');
  }
  if (error instanceof ApiError && error.status === 429)
    return toast(`Too many requests: retry in ${error.retryAfter ?? 'a few'} s.`);
  toast(error.message);
}

document.getElementById('sign-out').addEventListener('click', async () => {
  try {
    await signOut();
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) return handleError(error);
  }
  signedIn = false;
  renderSignIn('Signed out.');
});

window.addEventListener('hashchange', () => {
  route().then(() => main.focus());
});

restoreSession()
  .then((ok) => {
    signedIn = ok;
    return route();
  })
  .catch(handleError);
