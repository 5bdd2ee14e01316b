/**
 * How a Seedance 2 task names an asset the asset routes made: an `asset://<id>` URL (any case of the scheme).
 * Every string that reads as one once trimmed is a reference, whatever follows the scheme: an upstream that
 * trims (`"asset://<id> "`) or reads up to a space must not be handed an id the ownership check never saw.
 * An id with spaces, or none, is then refused as an asset the caller does not own.
 */
const assetScheme = /^asset:\/\//i;
/** Top-level fields that are prose, not URLs: a prompt that starts with `asset://` names no asset. */
const proseFields = new Set(['prompt', 'negative_prompt']);
const schemeLength = 'asset://'.length;
/** How deep a video body is read: real ones nest three levels (`metadata.image_with_roles[].url`). */
const maxDepth = 16;

/**
 * Pure: the asset ids a video body names as `asset://<id>` URLs, wherever they sit in it — resellers take
 * them in `image_url`, `video_url`, `audio_url`, `image_with_roles[].url`, `input_reference`, `metadata`, … —
 * each once, in the order met (the prompt is prose, not read). A body without any is read once and costs
 * nothing else.
 */
export function collectAssetReferences(body: unknown): string[] {
  const ids = new Set<string>();
  if (body === null || typeof body !== 'object' || Array.isArray(body)) collect(body, 0, ids);
  else for (const [key, value] of Object.entries(body)) if (!proseFields.has(key)) collect(value, 1, ids);
  return [...ids];
}

function collect(value: unknown, depth: number, ids: Set<string>): void {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (assetScheme.test(trimmed)) ids.add(trimmed.slice(schemeLength));
    return;
  }
  if (value === null || typeof value !== 'object' || depth >= maxDepth) return;
  for (const child of Array.isArray(value) ? value : Object.values(value)) collect(child, depth + 1, ids);
}
