// Preloaded (`node --expose-gc -r`) by heap-growth.js into the gateway: on SIGWINCH, three full
// collections, then one line of heap figures appended to HEAP_PROBE_OUT, and at the readings
// HEAP_PROBE_SNAPSHOT_READINGS lists (comma-separated) a heap snapshot written to
// HEAP_PROBE_SNAPSHOT_DIR. RSS alone counts the pages the
// allocator and V8 keep as well as live data, so it cannot tell growth from a heap that has not
// given pages back (docs/performance.md, "Twenty-fourth pass"). SIGWINCH: a signal the gateway
// does not use and whose default action is to ignore it.
const { appendFileSync } = require('node:fs');
const { join } = require('node:path');
const { writeHeapSnapshot } = require('node:v8');

const SNAPSHOT_DIR = process.env.HEAP_PROBE_SNAPSHOT_DIR;
const SNAPSHOT_READINGS = (process.env.HEAP_PROBE_SNAPSHOT_READINGS ?? '').split(',').map(Number);

let reading = 0;
process.on('SIGWINCH', () => {
  reading++;
  for (let i = 0; i < 3; i++) global.gc();
  const { heapUsed, external, arrayBuffers, rss } = process.memoryUsage();
  const snapshot =
    SNAPSHOT_DIR && SNAPSHOT_READINGS.includes(reading)
      ? writeHeapSnapshot(join(SNAPSHOT_DIR, `reading-${reading}.heapsnapshot`))
      : null;
  appendFileSync(
    process.env.HEAP_PROBE_OUT,
    `${JSON.stringify({ reading, heapUsed, external, arrayBuffers, rss, snapshot })}\n`,
  );
});
