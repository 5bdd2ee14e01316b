/**
 * A channel's model_mapping turns the name a client asked for into the upstream's name. Mappings may
 * chain (a → b → c); a loop is a configuration error, reported instead of spinning.
 */
export type MappingResult = { ok: true; upstreamModel: string } | { ok: false; loop: string[] };

export function resolveModelMapping(mapping: Readonly<Record<string, string>>, model: string): MappingResult {
  const seen: string[] = [model];
  let current = model;
  for (;;) {
    const next = mapping[current];
    if (next === undefined || next === '' || next === current) return { ok: true, upstreamModel: current };
    if (seen.includes(next)) return { ok: false, loop: [...seen, next] };
    seen.push(next);
    current = next;
  }
}
