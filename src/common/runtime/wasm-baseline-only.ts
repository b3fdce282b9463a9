import { setFlagsFromString } from 'node:v8';

/**
 * Imported first by main.ts, before anything compiles WebAssembly. Prisma's query compiler is a
 * 3.4 MB WebAssembly module; V8 also compiles it with its optimising tier, which kept about 60 MiB
 * of compiled code and compiler memory resident for the life of the process (idle RSS 209 MiB
 * against 150 MiB; docs/performance.md). Its baseline code (Liftoff) serves the gateway's few
 * queries (cached key lookups, batched usage inserts) well enough: they are off the request path.
 *
 * The flag holds for the whole process, so the embedded Postgres (PGlite, 9 MB of WebAssembly)
 * runs on baseline code too. Measured both ways (docs/performance.md, "Embedded defaults"): with
 * the optimising tier a batch insert of 100 usage rows is about 15% quicker and key lookups the
 * same, but idle RSS is about 100 MiB higher, the start slower, and CPU per request no lower
 * over 5,000 requests (the tier-up compiles cost what the quicker code saves).
 */
setFlagsFromString('--liftoff-only');
