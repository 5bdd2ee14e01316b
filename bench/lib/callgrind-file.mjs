/**
 * Reading callgrind files for bench/callgrind-functions.mjs: each function's own cost and the calls into
 * chosen functions, with JIT frames (known to callgrind only by address) named through node's perf map
 * (`--perf-basic-prof`).
 */
import { existsSync, readFileSync } from 'node:fs';

/** Perf map lines: `<start hex> <size hex> <name>`; a later line for the same address wins (code is reused). */
export function perfMapLookup(text) {
  const ranges = [];
  for (const line of text.split('\n')) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (match) ranges.push({ start: parseInt(match[1], 16), end: parseInt(match[1], 16) + parseInt(match[2], 16), name: match[3] });
  }
  const named = new Map();
  return (address) => {
    if (!named.has(address)) {
      let name;
      for (const range of ranges) if (address >= range.start && address < range.end) name = range.name;
      named.set(address, name);
    }
    return named.get(address);
  };
}

/** A function's name for comparing builds: JIT frames named, the build's directory and line:column dropped. */
export function normalise(name, lookup) {
  const address = /^0x([0-9a-f]+)/.exec(name);
  const named = address === null ? name : (lookup(parseInt(address[1], 16)) ?? '<unnamed JIT code>');
  return named.replace(/file:\/\/\/\S*?\/dist\//, 'dist/').replace(/:\d+:\d+$/, '');
}

/**
 * Reads a callgrind file (name compression `(id) name`, cost lines after `calls=` being the call's
 * inclusive cost). Returns each function's own cost and, with a pattern, the calls into matching functions.
 */
export function readCallgrind(path, { callersOf } = {}) {
  const mapPath = path.replace(/\.callgrind$/, '.perf.map');
  const lookup = perfMapLookup(existsSync(mapPath) ? readFileSync(mapPath, 'utf8') : '');
  return parseCallgrind(readFileSync(path, 'utf8'), lookup, callersOf);
}

/** The same, from the texts: `lookup` names a JIT address (see perfMapLookup). */
export function parseCallgrind(text, lookup, callersOf) {
  const defined = new Map();
  const resolve = (kind, rest) => {
    const match = /^\((\d+)\)(?: (.*))?$/.exec(rest);
    if (match === null) return rest;
    if (match[2] !== undefined) defined.set(kind + match[1], match[2]);
    return defined.get(kind + match[1]) ?? rest;
  };
  const own = new Map();
  const calls = new Map();
  let fn = '?';
  let callee = '';
  let callCount = -1;
  for (const line of text.split('\n')) {
    const equals = line.indexOf('=');
    const key = equals > 0 ? line.slice(0, equals) : '';
    if (key === 'fn') fn = normalise(resolve('fn', line.slice(3)), lookup);
    else if (key === 'cfn') callee = normalise(resolve('fn', line.slice(4)), lookup);
    else if (key === 'ob' || key === 'cob') resolve('ob', line.slice(equals + 1));
    else if (/^c?f[lie]$/.test(key)) resolve('fl', line.slice(equals + 1));
    else if (key === 'calls') callCount = Number(line.slice(6).split(' ')[0]);
    else if (/^(?:[+-]?\d|\*)/.test(line)) {
      const cost = Number(line.trim().split(/\s+/)[1] ?? 0);
      if (callCount < 0) own.set(fn, (own.get(fn) ?? 0) + cost);
      else if (callersOf !== undefined && callersOf.test(callee)) {
        const edge = `${fn}  →  ${callee}`;
        const sum = calls.get(edge) ?? { cost: 0, count: 0 };
        sum.cost += cost;
        sum.count += callCount;
        calls.set(edge, sum);
      }
      callCount = -1;
    }
  }
  return { own, calls };
}

