// A completion and a stream through the gateway with the official `openai` npm client: only the
// base URL and the key change. In this repository `npm ci` has installed `openai` already; in a
// project of your own, `npm i openai` first. Run it:
//   GATEWAY_KEY=gk-... node examples/openai-client.mjs
import OpenAI from 'openai';

const apiKey = process.env.GATEWAY_KEY;
if (!apiKey) {
  console.error('Set GATEWAY_KEY to a virtual key (the demo key printed by `npm start`).');
  process.exit(1);
}
const client = new OpenAI({
  baseURL: process.env.GATEWAY_BASE_URL ?? 'http://127.0.0.1:8080/v1',
  apiKey,
});

const completion = await client.chat.completions.create({
  model: 'alpha-k3',
  messages: [{ role: 'user', content: 'Hello!' }],
});
console.log(completion.choices[0].message.content);

const stream = await client.chat.completions.create({
  model: 'alpha-k3',
  messages: [{ role: 'user', content: 'Tell me a story.' }],
  stream: true,
  stream_options: { include_usage: true },
});
for await (const chunk of stream) {
  process.stdout.write(chunk.choices[0]?.delta?.content ?? '');
  if (chunk.usage) console.log(`\n(${chunk.usage.total_tokens} tokens)`);
}
