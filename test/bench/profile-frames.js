// How the profile scripts (profile-summary.js, profile-diff.js, profile-tree.js) name where a
// sampled frame runs, which layer of the gateway it belongs to, and which samples they count.

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

// Layers: each sample goes to the deepest frame on its stack that belongs to a known layer, so
// Node internals count for the library or gateway code that called them.
const LAYERS = [
  [
    'logging',
    /^(pino|pino-http|nestjs-pino|@pinojs\/redact|sonic-boom|pino-std-serializers|gateway:common\/logging)/,
  ],
  ['metrics', /^(prom-client|gateway:metrics)/],
  // replay-first: the stream's first batch handed back to the event stream.
  [
    'SSE relaying',
    /^(gateway:common\/sse|eventsource-parser|gateway:providers\/upstream-sse|gateway:common\/async\/replay-first)/,
  ],
  // The floors' own handlers (floor-proxy.js, nest-floor-proxy.js) are their adapters; the
  // attempt's abort signal is the upstream call's.
  [
    'upstream call (undici, adapter)',
    /^(undici|gateway:providers|gateway:common\/async\/upstream-abort-signal|file:.*floor-proxy\.js$)/,
  ],
  // uuid: the usage rows' time-ordered ids; money: their cost. The database module, Prisma's
  // generated client and the embedded Postgres serve the key lookups too, which the cache spares.
  [
    'usage recording (Prisma, pg)',
    /^(gateway:(usage|database|generated|common\/money)|@prisma|@electric-sql|pg|pg-protocol|pg-pool|uuid)/,
  ],
  // lru-cache: the key lookup cache.
  ['guards: key auth', /^(gateway:(auth|keys)|lru-cache)/],
  [
    'throttler, limits',
    /^(@nestjs\/throttler|gateway:(throttling|limits|common\/time|common\/tokens)|ioredis)/,
  ],
  [
    'validation',
    /^(gateway:common\/validation|gateway:completions\/(dto|chat-completion-body)|class-validator|class-transformer)/,
  ],
  // The deployments come from the config service; completion and request ids from common/ids.
  ['completions service, routing', /^gateway:(completions|config|common\/(ids|errors))/],
  // Before body parsing, which takes the rest of common/http: the HTTP adapter's reply writes
  // what Nest's handler returned, Nest's part.
  [
    'Nest routing, guards/interceptors glue, reply',
    /^(@nestjs\/core|@nestjs\/common|@nestjs\/platform-express|rxjs|reflect-metadata|gateway:common\/(filters|metadata|runtime)|gateway:common\/http\/(gateway|stable-prototype)-express\.adapter|gateway:app)/,
  ],
  [
    'body parsing, Express middleware',
    /^(body-parser|raw-body|content-type|iconv-lite|gateway:common\/http|type-is|media-typer)/,
  ],
  [
    'Express router',
    /^(express|router|path-to-regexp|finalhandler|on-finished|send|vary|cookie|parseurl|mime-types)/,
  ],
  ['Node HTTP server, sockets, streams', /^node:/],
];
const layerOfModule = (module) => LAYERS.find(([, pattern]) => pattern.test(module))?.[0];
const UNSTACKED = ['(garbage collector)', '(program)', '(idle)'];
// Frames that count for whoever called them: Node's own modules, V8's builtins, WebAssembly
// (undici's HTTP parser, Prisma's query compiler) and helpers any package or layer may call
// (debug, tslib's async and decorator helpers, the gateway's withTimeout, which the key lookup
// and the health check use).
const INNER = /^(node:|\(native \/ V8\)$|wasm:|debug$|tslib$|gateway:common\/async\/with-timeout)/;

/**
 * For one profile (`nodes`: node id -> node), a function from a sampled node's id to its layer:
 * the deepest frame on its stack that is not INNER, by its package's layer (a package outside
 * every layer as `other: <package>`); V8's own entries (the collector, `(program)`) as themselves.
 */
function layerNamer(nodes) {
  const parent = new Map();
  for (const node of nodes.values())
    for (const child of node.children ?? []) parent.set(child, node.id);
  const named = new Map();
  return (id) => {
    let layer = named.get(id);
    if (layer !== undefined) return layer;
    const leafName = nodes.get(id).callFrame.functionName;
    if (UNSTACKED.includes(leafName)) layer = leafName;
    for (let at = id; layer === undefined && at !== undefined; at = parent.get(at)) {
      const module = moduleOf(nodes.get(at).callFrame.url);
      if (!INNER.test(module)) layer = layerOfModule(module) ?? `other: ${module}`;
    }
    for (let at = id; layer === undefined && at !== undefined; at = parent.get(at))
      layer = layerOfModule(moduleOf(nodes.get(at).callFrame.url));
    layer ??= '(native / V8)';
    named.set(id, layer);
    return layer;
  };
}

module.exports = { moduleOf, functionKey, layerNamer, measuredSamples };
