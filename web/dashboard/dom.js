// A tiny element builder: text always goes in as text nodes, never as HTML.
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2).toLowerCase(), value);
    else if (name === 'class') el.className = value;
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof window.Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function toast(message) {
  const box = document.getElementById('toast');
  box.textContent = message;
  setTimeout(() => {
    if (box.textContent === message) box.textContent = '';
  }, 4000);
}

export async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    toast('Copied to the clipboard.');
  } catch {
    toast('Copy failed: select the text and copy it by hand.');
  }
}

export function copyButton(label, text) {
  return h(
    'button',
    { type: 'button', class: 'secondary', 'aria-label': label, onclick: () => copy(text) },
    'Copy',
  );
}

export function formatDate(iso) {
  return iso ? new Date(iso).toLocaleString() : '—';
}
