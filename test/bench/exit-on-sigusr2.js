// Preloaded (`node -r`) by the benchmark when it profiles (BENCH_PROFILE): SIGUSR2 exits through
// process.exit, so `--cpu-prof` writes its profile. SIGTERM would not: Nest's shutdown hook ends
// the process by re-raising the signal, which skips the profiler's exit handler.
process.on('SIGUSR2', () => process.exit(0));
