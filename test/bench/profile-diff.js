#!/usr/bin/env node
// `node test/bench/profile-diff.js DIR` (docs/performance.md): compares the CPU profiles that
// `BENCH_PROFILE=DIR npm run bench` wrote for the Nest floor and the gateway, per request: self
// time of each function over the measured saturation run, divided by the requests that run
// served, gateway minus Nest floor, largest first. What the gateway's own work costs on top of
// the design's floor, layer by layer (profile-frames.js's layers: Nest, the upstream call,
// logging, usage records, ...) and function by function.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { functionKey, layerNamer, measuredSamples } = require('./profile-frames');

const dir = process.argv[2];
const top = Number(process.argv[3] ?? 40);
if (!dir) {
  console.error('usage: node test/bench/profile-diff.js DIR [rows]');
  process.exit(2);
}
const index = JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8'));

/** Microseconds of CPU per request by function (self time) and by layer, over the measured run. */
function perRequest({ file, requests, measuredS }) {
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const { nodes, samples } = measuredSamples(profile, measuredS);
  const layerOf = layerNamer(nodes);
  const self = new Map();
  const layers = new Map();
  for (const [id, us] of samples) {
    const key = functionKey(nodes.get(id).callFrame);
    self.set(key, (self.get(key) ?? 0) + us / requests);
    const layer = layerOf(id);
    layers.set(layer, (layers.get(layer) ?? 0) + us / requests);
  }
  return { self, layers };
}

/** The `rows` keys of either map whose gateway figure most exceeds the Nest floor's, largest first. */
function printDifferences(label, a, b, rows) {
  const all = [...new Set([...a.keys(), ...b.keys()])].map((key) => ({
    key,
    floor: a.get(key) ?? 0,
    gateway: b.get(key) ?? 0,
  }));
  all.sort((x, y) => y.gateway - y.floor - (x.gateway - x.floor));
  console.log(`${'diff'.padStart(7)} ${'floor'.padStart(7)} ${'gateway'.padStart(7)}  ${label}`);
  for (const row of all.slice(0, rows))
    console.log(
      `${(row.gateway - row.floor).toFixed(1).padStart(7)} ${row.floor.toFixed(1).padStart(7)} ` +
        `${row.gateway.toFixed(1).padStart(7)}  ${row.key}`,
    );
}

const sum = (map) => [...map.values()].reduce((a, b) => a + b, 0);
for (const shape of ['json', 'streams']) {
  const floor = index[`nest-floor-${shape}`];
  const gateway = index[`gateway-${shape}`];
  if (!floor || !gateway) continue;
  const a = perRequest(floor);
  const b = perRequest(gateway);
  console.log(
    `\n${shape}: CPU per request ${sum(b.self).toFixed(1)} us (gateway) - ${sum(a.self).toFixed(1)} us ` +
      `(Nest floor) = ${(sum(b.self) - sum(a.self)).toFixed(1)} us; by layer (us per request):`,
  );
  printDifferences('layer', a.layers, b.layers, Infinity);
  console.log('\nlargest differences by function (us per request):');
  printDifferences('function', a.self, b.self, top);
}
