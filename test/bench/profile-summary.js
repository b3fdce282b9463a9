#!/usr/bin/env node
// Summarises a V8 CPU profile (`node --cpu-prof`, or `BENCH_PROFILE=DIR npm run bench`) as text:
// self time by module (npm package, or file of the gateway's own code) and by function.
//   node test/bench/profile-summary.js DIR/CPU.*.cpuprofile [top=25]
const { readFileSync } = require('node:fs');
const { functionKey, moduleOf } = require('./profile-frames');

const [file, topArg] = process.argv.slice(2);
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
// Sample i covers timeDeltas[i + 1] microseconds (V8's convention); close enough for a summary.
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i + 1] ?? 0;
  self.set(id, (self.get(id) ?? 0) + dt);
});
const total = [...self.values()].reduce((a, b) => a + b, 0);

const modules = new Map();
const functions = new Map();
for (const [id, us] of self) {
  const { callFrame } = byId.get(id);
  const name = callFrame.functionName || '(anonymous)';
  const module = ['(garbage collector)', '(program)', '(idle)'].includes(name)
    ? name
    : moduleOf(callFrame.url);
  modules.set(module, (modules.get(module) ?? 0) + us);
  const key = functionKey(callFrame);
  functions.set(key, (functions.get(key) ?? 0) + us);
}
// Layers: each sample goes to the deepest frame on its stack that belongs to a known layer, so
// Node internals count for the library or gateway code that called them.
const LAYERS = [
  [
    'logging',
    /^(pino|pino-http|nestjs-pino|@pinojs\/redact|sonic-boom|pino-std-serializers|gateway:common\/logging)/,
  ],
  ['metrics', /^(prom-client|gateway:metrics)/],
  [
    'SSE relaying',
    /^(gateway:common\/sse|eventsource-parser|gateway:providers\/upstream-sse|gateway:common\/async)/,
  ],
  ['upstream call (undici, adapter)', /^(undici|gateway:providers)/],
  ['usage recording (Prisma, pg)', /^(gateway:usage|@prisma|pg|pg-protocol|pg-pool|wasm:)/],
  ['guards: key auth', /^gateway:(auth|keys)/],
  ['throttler, limits', /^(@nestjs\/throttler|gateway:throttling|gateway:limits|ioredis)/],
  [
    'validation',
    /^(gateway:common\/validation|gateway:completions\/(dto|chat-completion-body)|class-validator|class-transformer)/,
  ],
  ['completions service, routing', /^gateway:completions/],
  [
    'body parsing, Express middleware',
    /^(body-parser|raw-body|content-type|iconv-lite|gateway:common\/http|type-is|media-typer)/,
  ],
  [
    'Nest routing, guards/interceptors glue',
    /^(@nestjs\/core|@nestjs\/common|@nestjs\/platform-express|rxjs|reflect-metadata|gateway:common\/filters|gateway:app)/,
  ],
  ['Express router', /^(express|router|path-to-regexp|finalhandler|on-finished|send|vary|cookie)/],
  ['Node HTTP server, sockets, streams', /^node:/],
];
const layerOf = (module) => LAYERS.find(([, pattern]) => pattern.test(module))?.[0];
const layers = new Map();
const parent = new Map();
for (const node of profile.nodes)
  for (const child of node.children ?? []) parent.set(child, node.id);
for (const [id, us] of self) {
  let layer;
  const leaf = byId.get(id).callFrame;
  const leafName = leaf.functionName;
  if (['(garbage collector)', '(program)', '(idle)'].includes(leafName)) layer = leafName;
  for (let at = id; layer === undefined && at !== undefined; at = parent.get(at)) {
    const module = moduleOf(byId.get(at).callFrame.url);
    if (!module.startsWith('node:') && module !== '(native / V8)')
      layer = layerOf(module) ?? `other: ${module}`;
  }
  if (layer === undefined) {
    for (let at = id; layer === undefined && at !== undefined; at = parent.get(at))
      layer = layerOf(moduleOf(byId.get(at).callFrame.url));
  }
  layer ??= '(native / V8)';
  layers.set(layer, (layers.get(layer) ?? 0) + us);
}
const busy = total - (modules.get('(idle)') ?? 0);
const print = (title, map) => {
  console.log(`\n${title} (share of busy time, ${(busy / 1000).toFixed(0)} ms busy)`);
  for (const [key, us] of [...map]
    .filter(([k]) => k !== '(idle)' && !k.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top))
    console.log(`${((100 * us) / busy).toFixed(1).padStart(5)}%  ${key}`);
};
print('time by layer', layers);
print('self time by module', modules);
print('self time by function', functions);
