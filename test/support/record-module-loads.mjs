/**
 * `node --import ./record-module-loads.mjs`: appends the URL of every module the process resolves from
 * the named packages to a file — how a test sees whether a child process loaded a package at all.
 * Environment: RELAY_TEST_MODULE_LOG (the file), RELAY_TEST_MODULE_PACKAGES (comma-separated names).
 */
import { register } from 'node:module';

register('./record-module-loads-hooks.mjs', import.meta.url, {
  data: { logPath: process.env.RELAY_TEST_MODULE_LOG, packageNames: (process.env.RELAY_TEST_MODULE_PACKAGES ?? '').split(',').filter(Boolean) },
});
