import { setFlagsFromString } from 'node:v8';

/**
 * Imported first by main.ts, before anything compiles WebAssembly. Prisma's query compiler is a
 * 3.4 MB WebAssembly module; V8 also compiles it with its optimising tier, which kept about 60 MiB
 * of compiled code and compiler memory resident for the life of the process (idle RSS 209 MiB
 * against 150 MiB; docs/performance.md). Its baseline code (Liftoff) serves the gateway's few
 * queries (cached key lookups, batched usage inserts) well enough: they are off the request path.
 */
setFlagsFromString('--liftoff-only');
