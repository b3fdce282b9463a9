import { call } from './api.js';
import { copyButton, h } from './dom.js';

function snippets(baseUrl, model) {
  return {
    curl: `curl ${baseUrl}/chat/completions \\
  -H "Authorization: Bearer $GATEWAY_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "${model}", "messages": [{"role": "user", "content": "Hello"}]}'`,
    Python: `import os
from openai import OpenAI

client = OpenAI(base_url="${baseUrl}", api_key=os.environ["GATEWAY_API_KEY"])
reply = client.chat.completions.create(
    model="${model}",
    messages=[{"role": "user", "content": "Hello"}],
)
print(reply.choices[0].message.content)`,
    TypeScript: `import OpenAI from 'openai';

const client = new OpenAI({ baseURL: '${baseUrl}', apiKey: process.env.GATEWAY_API_KEY });
const reply = await client.chat.completions.create({
  model: '${model}',
  messages: [{ role: 'user', content: 'Hello' }],
});
console.log(reply.choices[0].message.content);`,
  };
}

function uptime(seconds) {
  const d = Math.floor(seconds / 86400),
    hrs = Math.floor((seconds % 86400) / 3600),
    m = Math.floor((seconds % 3600) / 60);
  return d > 0 ? `${d} d ${hrs} h` : hrs > 0 ? `${hrs} h ${m} min` : `${m} min ${seconds % 60} s`;
}

export async function renderOverview({ show }) {
  const data = await call('GET', '/overview');
  const model = data.models[0]?.id ?? 'MODEL';
  const code = snippets(data.base_url, model);
  show(
    h('h1', {}, 'Overview'),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'base-url-title' },
      h('h2', { id: 'base-url-title' }, 'API base URL'),
      h(
        'p',
        {},
        'Point any OpenAI-compatible client at this URL, with a virtual key (gk-…) as the API key.',
      ),
      h(
        'div',
        { class: 'row' },
        h('code', { id: 'base-url', class: 'big' }, data.base_url),
        copyButton('Copy base URL', data.base_url),
      ),
      ...Object.entries(code).map(([language, text], index) =>
        h(
          'details',
          { open: index === 0 },
          h('summary', {}, language),
          h(
            'div',
            { class: 'row top' },
            h('pre', {}, h('code', {}, text)),
            copyButton(`Copy ${language} snippet`, text),
          ),
        ),
      ),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'models-title' },
      h('h2', { id: 'models-title' }, 'Models'),
      h(
        'table',
        {},
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'Public model'),
            h('th', { scope: 'col' }, 'Deployment'),
            h('th', { scope: 'col' }, 'Provider'),
            h('th', { scope: 'col' }, 'Upstream model'),
            h('th', { scope: 'col' }, 'Health'),
          ),
        ),
        h(
          'tbody',
          {},
          data.models.flatMap((m) =>
            m.deployments.map((d, i) =>
              h(
                'tr',
                {},
                i === 0 ? h('th', { scope: 'row', rowspan: m.deployments.length }, m.id) : null,
                h('td', {}, d.name),
                h('td', {}, d.provider),
                h('td', {}, d.upstream_model ?? '—'),
                h('td', {}, h('span', { class: `badge ${d.health}` }, healthLabel(d))),
              ),
            ),
          ),
        ),
      ),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'gateway-title' },
      h('h2', { id: 'gateway-title' }, 'Gateway'),
      h(
        'dl',
        {},
        h('dt', {}, 'Version'),
        h('dd', {}, data.version),
        h('dt', {}, 'Uptime'),
        h('dd', {}, uptime(data.uptime_seconds)),
        h('dt', {}, 'Started'),
        h('dd', {}, new Date(data.started_at).toLocaleString()),
      ),
    ),
  );
}

// Routing's cool-down state for this gateway instance (README "Routing").
function healthLabel(d) {
  if (d.health === 'cooling_down')
    return `cooling down until ${new Date(d.cooling_until).toLocaleTimeString()}`;
  if (d.health === 'awaiting_probe' || d.health === 'probing') return 'probing after cool-down';
  return d.consecutive_failures > 0
    ? `available (${d.consecutive_failures} recent failures)`
    : 'available';
}
