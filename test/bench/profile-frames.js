// How the profile scripts (profile-summary.js, profile-diff.js, profile-tree.js) name where a
// sampled frame runs, and which samples they count.

/** The npm package, `node:` folder or gateway file (under dist/) a frame's script belongs to. */
function moduleOf(url) {
  if (!url) return '(native / V8)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  const own = /\/dist\/(.+)$/.exec(url);
  return own ? `gateway:${own[1]}` : url;
}

/** A function as both scripts list it: name, module and line. */
function functionKey(callFrame) {
  return `${callFrame.functionName || '(anonymous)'}  ${moduleOf(callFrame.url)}:${callFrame.lineNumber + 1}`;
}

/**
 * The samples of a profile's measured saturation run, as [node id, microseconds] pairs: the last
 * `measuredS` seconds before the process was told to exit (and 0.2 s of its exit), idle left out.
 * `nodes` maps a node id to the profile's node.
 */
function measuredSamples(profile, measuredS) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const from = profile.endTime - (measuredS + 0.2) * 1e6;
  const samples = [];
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i];
    time += delta;
    if (time < from) continue;
    if (nodes.get(profile.samples[i]).callFrame.functionName === '(idle)') continue;
    samples.push([profile.samples[i], delta]);
  }
  return { nodes, samples };
}

module.exports = { moduleOf, functionKey, measuredSamples };
