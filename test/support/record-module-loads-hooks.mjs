/** Loader hooks of record-module-loads.mjs (they run on node's loader thread). */
import { appendFileSync } from 'node:fs';

let logPath;
let folders = [];

export function initialize(data) {
  logPath = data?.logPath;
  folders = (data?.packageNames ?? []).map((name) => `/node_modules/${name}/`);
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (logPath !== undefined && folders.some((folder) => resolved.url.includes(folder))) appendFileSync(logPath, `${resolved.url}\n`);
  return resolved;
}
