import type { Converted } from '../../canonical/conversion.js';
import { isRecord } from '../shared/is-record.js';

/** A key as a lenient reader matches it: Go's encoding/json ignores case, proto JSON takes snake_case too. */
function looseKey(key: string): string {
  return key.toLowerCase().replaceAll('_', '');
}

/**
 * A Gemini client's body, for a Gemini channel as sent (passthrough), without the fields that choose a
 * model other than the path's, which the key was checked against and the request is priced by: a body
 * `model` (Google answers 400 to it, but a Gemini-compatible upstream or proxy may read it and serve a
 * dearer model), and `generationConfig.routingConfig` (Vertex AI's model router: `manualMode.modelName`
 * names a model, `autoMode` lets Vertex pick one; cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference).
 * Keys are matched as a lenient reader would (any case, snake_case). `cachedContent` stays: a cache made for
 * another model is refused by Google, not served by it. Undefined when nothing had to go, so the client's
 * bytes are sent unchanged.
 */
export function dropGeminiModelChoice(body: Record<string, unknown>): Converted<Record<string, unknown>> | undefined {
  const warnings: string[] = [];
  let value = body;
  for (const key of Object.keys(body)) {
    const loose = looseKey(key);
    if (loose === 'model') {
      if (value === body) value = { ...body };
      delete value[key];
      warnings.push(`${key}: the model is the path's; a model named in the body is not sent upstream`);
    } else if (loose === 'generationconfig' && isRecord(body[key])) {
      const config = body[key];
      const routing = Object.keys(config).filter((field) => looseKey(field) === 'routingconfig');
      if (routing.length === 0) continue;
      const kept = { ...config };
      for (const field of routing) {
        delete kept[field];
        warnings.push(`${key}.${field}: model routing would choose another model than the path's: not sent upstream`);
      }
      if (value === body) value = { ...body };
      value[key] = kept;
    }
  }
  return warnings.length === 0 ? undefined : { value, warnings };
}
