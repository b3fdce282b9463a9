#!/usr/bin/env node
// Micro-benchmark of the prompt estimate behind token and dollar holds (docs/keys-and-limits.md,
// "The prompt estimate"): the UTF-8 byte bound and the o200k_base tokenizer per text, and the
// worst cases the tokenizer is guarded against. Not a test: it prints figures.
//
//   npm run build && node scripts/bench-prompt-estimate.js
'use strict';

const { join } = require('node:path');
const dist = (path) => require(join(__dirname, '..', 'dist', path));
const { promptTokenCounterFor, UTF8_BYTES_COUNTER } = dist('common/tokens/prompt-token-counter');
const { TokenizerBudget } = dist('common/tokens/tokenizer-budget');
const { exactOpenAiTokens } = dist('common/tokens/openai-encoding');

const rss = process.memoryUsage().rss;
let started = performance.now();
const gpt = promptTokenCounterFor({ provider: 'openai', model: 'gpt-4o' });
gpt.prepare();
console.log(
  `o200k_base loaded in ${(performance.now() - started).toFixed(0)} ms, ` +
    `+${((process.memoryUsage().rss - rss) / 2 ** 20).toFixed(0)} MiB RSS`,
);

const texts = {
  'English, 400 chars': 'The quick brown fox jumps over the lazy dog. '.repeat(9).slice(0, 400),
  'CJK, 400 chars': '我们在测试一个网关的预算限制是否在非拉丁文字下也能成立。'
    .repeat(15)
    .slice(0, 400),
  'code, 2,120 chars': 'function f(a, b) { return a.map((x) => x * b + 1); }\n'.repeat(40),
  'English, 20,000 chars': 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(350),
};
for (const [name, text] of Object.entries(texts)) {
  // Different strings every time, so the tokenizer's merge cache helps only as it would in use.
  const variants = Array.from({ length: 64 }, (_, i) => `${text} ${i}`);
  const time = (count) => {
    const n = 2_000;
    started = performance.now();
    for (let i = 0; i < n; i++) count(variants[i % variants.length]);
    return ((performance.now() - started) * 1000) / n;
  };
  const bytes = time((t) => UTF8_BYTES_COUNTER.text(t, TokenizerBudget.unlimited()));
  const bound = time((t) => gpt.text(t, new TokenizerBudget(4)));
  const exact = time((t) => exactOpenAiTokens('o200k_base', t));
  console.log(
    `${name.padEnd(22)} tokens ${String(exactOpenAiTokens('o200k_base', text)).padStart(5)}, ` +
      `bound ${String(gpt.text(text, TokenizerBudget.unlimited())).padStart(5)}, bytes ${String(UTF8_BYTES_COUNTER.text(text, TokenizerBudget.unlimited())).padStart(6)} | ` +
      `µs per text: byte bound ${bytes.toFixed(1)}, tokenizer bound ${bound.toFixed(1)}, whole-text tokenizer ${exact.toFixed(1)}`,
  );
}

const random = (length, from, span) =>
  Array.from({ length }, () => String.fromCodePoint(from + Math.floor(Math.random() * span))).join(
    '',
  );
const worst = {
  "1 MB of 'a'": 'a'.repeat(1_000_000),
  '1 MB of random ASCII': random(1_000_000, 33, 94),
  '330k random CJK': random(330_000, 0x4e00, 20_000),
  '1 MB of English': 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(17_500),
};
for (const [name, text] of Object.entries(worst)) {
  started = performance.now();
  const bound = gpt.text(text, new TokenizerBudget(4));
  console.log(
    `${name.padEnd(22)} bound ${bound} in ${(performance.now() - started).toFixed(1)} ms`,
  );
}
