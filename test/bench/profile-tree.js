#!/usr/bin/env node
// `node test/bench/profile-tree.js DIR NAME [MIN_US]` (docs/performance.md): one profile that
// `BENCH_PROFILE=DIR npm run bench` wrote (NAME as in DIR/profiles.json, e.g. gateway-json), as a
// flame graph in text: the call tree from the root down, each frame with its inclusive time per
// request over the measured run, children largest first, frames under MIN_US (default 3) left
// out. `--folded` instead prints every stack in the collapsed format ("a;b;c microseconds")
// that flame graph renderers read (speedscope, inferno, flamegraph.pl).
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { functionKey, measuredSamples } = require('./profile-frames');

const args = process.argv.slice(2);
const folded = args.includes('--folded');
const [dir, name, minArg] = args.filter((arg) => arg !== '--folded');
if (!dir || !name) {
  console.error('usage: node test/bench/profile-tree.js DIR NAME [MIN_US] [--folded]');
  process.exit(2);
}
const minUs = Number(minArg ?? 3);
const entry = JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8'))[name];
if (!entry) {
  console.error(`${name} is not in ${join(dir, 'profiles.json')}`);
  process.exit(2);
}
const profile = JSON.parse(readFileSync(join(dir, entry.file), 'utf8'));
const { nodes, samples } = measuredSamples(profile, entry.measuredS);
const parents = new Map();
for (const node of profile.nodes)
  for (const child of node.children ?? []) parents.set(child, node.id);

/** Frames from the root down to the sampled one; the root itself left out. */
function stackOf(id) {
  const stack = [];
  for (let at = id; at !== undefined; at = parents.get(at)) stack.push(nodes.get(at).callFrame);
  return stack.reverse().slice(1);
}

const perRequest = (us) => us / entry.requests;

/** Every stack in the collapsed format, a line each. */
function printFolded() {
  const stacks = new Map();
  for (const [id, us] of samples) {
    const key = stackOf(id)
      .map((frame) => functionKey(frame).replace(/;/g, ','))
      .join(';');
    stacks.set(key, (stacks.get(key) ?? 0) + us);
  }
  for (const [key, us] of stacks) console.log(`${key} ${Math.round(us)}`);
}

/** The call tree, frames merged by function along each path as a flame graph merges them. */
function printTree() {
  const root = { us: 0, children: new Map() };
  for (const [id, us] of samples) {
    root.us += us;
    let at = root;
    for (const frame of stackOf(id)) {
      const key = functionKey(frame);
      let child = at.children.get(key);
      if (!child) at.children.set(key, (child = { us: 0, children: new Map() }));
      child.us += us;
      at = child;
    }
  }

  console.log(
    `${name}: ${perRequest(root.us).toFixed(1)} us of CPU per request (profiled) over ` +
      `${entry.requests} requests; inclusive us per request, frames under ${minUs} us left out`,
  );
  function print(node, depth) {
    const children = [...node.children].sort((a, b) => b[1].us - a[1].us);
    for (const [key, child] of children) {
      const us = perRequest(child.us);
      if (us < minUs) break;
      console.log(`${us.toFixed(1).padStart(7)} ${'  '.repeat(depth)}${key}`);
      print(child, depth + 1);
    }
  }
  print(root, 0);
}

// No process.exit(): it would cut off what is still waiting to go down a pipe.
if (folded) printFolded();
else printTree();
