// How the profile scripts (profile-summary.js, profile-diff.js) name where a sampled frame runs.

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

module.exports = { moduleOf, functionKey };
