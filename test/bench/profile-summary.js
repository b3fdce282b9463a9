#!/usr/bin/env node
// Summarises a V8 CPU profile (`node --cpu-prof`, or `BENCH_PROFILE=DIR npm run bench`) as text:
// self time by module (npm package, or file of the gateway's own code) and by function.
//   node test/bench/profile-summary.js DIR/CPU.*.cpuprofile [top=25]
const { readFileSync } = require('node:fs');
const { functionKey, layerNamer, moduleOf } = require('./profile-frames');

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
const layerOf = layerNamer(byId);
const layers = new Map();
for (const [id, us] of self) {
  const layer = layerOf(id);
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
