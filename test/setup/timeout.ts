// 30 s for each e2e test and hook: they start gateways, databases and child processes. Set here,
// per project, because Jest reads `testTimeout` from the global config only (a project's own
// `testTimeout` is ignored, so the e2e tests ran with the 5 s default).
jest.setTimeout(30_000);
