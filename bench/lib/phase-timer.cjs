/**
 * Loaded into the gateway with `node --require` by bench/one-connection-phases.mjs: times where one
 * request's wall time goes, from outside the gateway's code. Phases of each request (monotonic clock):
 *
 *   request    node:http's request event ('http.server.request.start')
 *   commitFrom a write transaction begins (better-sqlite3 `transaction(...).immediate`, as the group commit runs it)
 *   commitTo   it has committed
 *   sent       undici wrote the upstream request's headers ('undici:client:sendHeaders')
 *   answered   undici parsed the upstream response's headers ('undici:request:headers')
 *   finished   the response to the client was handed to the kernel ('http.server.response.finish'), or
 *              with PHASE_TIMER_UNTIL=head (streams: the time to first token) its status line and headers
 *              were written, which a stream does with its first event (`ServerResponse#writeHead`)
 *
 * Only meaningful with one request in flight at a time (one connection): the events are matched by order,
 * not by request. Writes `{ samples: [[toCommit, commit, commitToSend, upstream, post, total], …] }` (µs)
 * to PHASE_TIMER_OUT when the process gets SIGUSR2.
 */
'use strict';
const diagnostics = require('node:diagnostics_channel');
const { writeFileSync } = require('node:fs');
const http = require('node:http');
const Database = require('better-sqlite3');

const now = () => Number(process.hrtime.bigint()) / 1000;
let current;
const samples = [];

diagnostics.subscribe('http.server.request.start', () => {
  current = { request: now(), commitFrom: undefined, commitTo: undefined, sent: undefined, answered: undefined };
});
diagnostics.subscribe('undici:client:sendHeaders', () => {
  if (current !== undefined && current.sent === undefined) current.sent = now();
});
diagnostics.subscribe('undici:request:headers', () => {
  if (current !== undefined && current.answered === undefined) current.answered = now();
});
const untilHead = process.env.PHASE_TIMER_UNTIL === 'head';
function finish() {
  const r = current;
  current = undefined;
  if (r === undefined || r.commitTo === undefined || r.sent === undefined || r.answered === undefined) return;
  const finished = now();
  samples.push([r.commitFrom - r.request, r.commitTo - r.commitFrom, r.sent - r.commitTo, r.answered - r.sent, finished - r.answered, finished - r.request]);
}
if (untilHead) {
  const writeHead = http.ServerResponse.prototype.writeHead;
  http.ServerResponse.prototype.writeHead = function timedWriteHead(...args) {
    const result = writeHead.apply(this, args);
    finish();
    return result;
  };
} else {
  diagnostics.subscribe('http.server.response.finish', finish);
}

// The first write transaction after the request event and before the upstream call: the reservation's.
const transaction = Database.prototype.transaction;
Database.prototype.transaction = function timedTransaction(fn) {
  // better-sqlite3 defines the variants as read-only properties: hand out a function of our own instead.
  const wrapped = transaction.call(this, fn);
  const timed = function (...args) {
    return wrapped.apply(this, args);
  };
  timed.deferred = wrapped.deferred;
  timed.exclusive = wrapped.exclusive;
  timed.database = wrapped.database;
  timed.immediate = function timedImmediate(...args) {
    const r = current !== undefined && current.sent === undefined && current.commitFrom === undefined ? current : undefined;
    if (r !== undefined) r.commitFrom = now();
    try {
      return wrapped.immediate.apply(this, args);
    } finally {
      if (r !== undefined) r.commitTo = now();
    }
  };
  return timed;
};

process.on('SIGUSR2', () => {
  const out = process.env.PHASE_TIMER_OUT;
  if (out !== undefined) writeFileSync(out, JSON.stringify({ samples }));
  samples.length = 0;
});
