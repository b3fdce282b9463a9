import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings of the gateway process, imported first by main.ts: before anything compiles
 * WebAssembly, and before the heap has grown. Both are measured in docs/performance.md.
 */

/**
 * Baseline WebAssembly code only. Prisma's query compiler is a WebAssembly module; V8 also
 * compiled it with its optimising tier, which kept about 60 MiB of compiled code and compiler
 * memory resident for the life of the process (idle RSS 209 MiB against 150 MiB). Its baseline
 * code (Liftoff) serves the gateway's few queries (cached key lookups, batched usage inserts) well
 * enough: they are off the request path.
 *
 * The flag holds for the whole process, so the embedded Postgres (PGlite, 9 MB of WebAssembly)
 * runs on baseline code too. Measured both ways ("Embedded defaults"): with the optimising tier
 * a batch insert of 100 usage rows is about 15% quicker and key lookups the same, but idle RSS is
 * about 100 MiB higher, the start slower, and CPU per request no lower over 5,000 requests.
 */
setFlagsFromString('--liftoff-only');

/**
 * The old generation may grow to twice what survived the last full collection before the next
 * one. V8's own factor goes up to 4x when collections are cheap, and they are here (about 40 MiB
 * survives): under load the heap climbed from 40 to 170 MiB of mostly dead request objects
 * before a collection, so RSS peaked near 300 MiB. At 2x the same load peaks about 60 MiB lower
 * for no measurable CPU; 1.6x and below cost CPU (5 % at 1.6x, 25 % at 1.2x).
 */
setFlagsFromString('--heap-growing-percent=100');
