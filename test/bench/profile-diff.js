#!/usr/bin/env node
// `node test/bench/profile-diff.js DIR` (docs/performance.md): compares the CPU profiles that
// `BENCH_PROFILE=DIR npm run bench` wrote for the Nest floor and the gateway, per request: self
// time of each function over the measured saturation run, divided by the requests that run
// served, gateway minus Nest floor, largest first. What the gateway's own work costs on top of
// the design's floor, function by function.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { functionKey, measuredSamples } = require('./profile-frames');

const dir = process.argv[2];
const top = Number(process.argv[3] ?? 40);
if (!dir) {
  console.error('usage: node test/bench/profile-diff.js DIR [rows]');
  process.exit(2);
}
const index = JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8'));

/** Microseconds of self time per request by function, over the measured run. */
function selfPerRequest({ file, requests, measuredS }) {
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const { nodes, samples } = measuredSamples(profile, measuredS);
  const self = new Map();
  for (const [id, us] of samples) {
    const key = functionKey(nodes.get(id).callFrame);
    self.set(key, (self.get(key) ?? 0) + us / requests);
  }
  return self;
}

const sum = (map) => [...map.values()].reduce((a, b) => a + b, 0);
for (const shape of ['json', 'streams']) {
  const floor = index[`nest-floor-${shape}`];
  const gateway = index[`gateway-${shape}`];
  if (!floor || !gateway) continue;
  const a = selfPerRequest(floor);
  const b = selfPerRequest(gateway);
  console.log(
    `\n${shape}: CPU per request ${sum(b).toFixed(1)} us (gateway) - ${sum(a).toFixed(1)} us ` +
      `(Nest floor) = ${(sum(b) - sum(a)).toFixed(1)} us; largest differences (us per request):`,
  );
  const rows = [...new Set([...a.keys(), ...b.keys()])].map((key) => ({
    key,
    floor: a.get(key) ?? 0,
    gateway: b.get(key) ?? 0,
  }));
  rows.sort((x, y) => y.gateway - y.floor - (x.gateway - x.floor));
  console.log(`${'diff'.padStart(7)} ${'floor'.padStart(7)} ${'gateway'.padStart(7)}  function`);
  for (const row of rows.slice(0, top))
    console.log(
      `${(row.gateway - row.floor).toFixed(1).padStart(7)} ${row.floor.toFixed(1).padStart(7)} ` +
        `${row.gateway.toFixed(1).padStart(7)}  ${row.key}`,
    );
}
