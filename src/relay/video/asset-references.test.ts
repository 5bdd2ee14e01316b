import { describe, expect, it } from 'vitest';
import { collectAssetReferences } from './asset-references.js';

describe('collectAssetReferences', () => {
  it('finds asset:// URLs anywhere in a video body, each once, in the order met, whatever the scheme case', () => {
    const body = {
      model: 'doubao-seedance-2-0-260128',
      prompt: 'asset://prose-is-not-read',
      image_url: 'asset://asset-1',
      metadata: { image_with_roles: [{ url: 'Asset://asset-2', role: 'first_frame' }, { url: 'https://example.com/x.png' }], audio_url: 'ASSET://asset-1' },
      input_reference: ['asset://asset-3'],
    };
    expect(collectAssetReferences(body)).toEqual(['asset-1', 'asset-2', 'asset-3']);
  });

  it('finds nothing in a body without references, a bare scheme, or what is not JSON-like', () => {
    expect(collectAssetReferences({ model: 'm', prompt: 'a cat', image: 'https://example.com/asset://x', seconds: 4 })).toEqual([]);
    expect(collectAssetReferences(undefined)).toEqual([]);
    expect(collectAssetReferences('asset://top')).toEqual(['top']);
  });

  it('reads a reference with spaces around it, and takes a malformed one (spaces inside, no id) as a reference to check', () => {
    // From the isolation audit: `"asset://<id> "` passed unchecked to an upstream that may trim it.
    expect(collectAssetReferences({ image_url: ' asset://padded\n', video_url: '\tASSET://tabbed' })).toEqual(['padded', 'tabbed']);
    expect(collectAssetReferences({ image_url: 'asset://two words', video_url: 'asset://' })).toEqual(['two words', '']);
  });

  it('reads at most 16 levels deep', () => {
    let deep: unknown = 'asset://too-deep';
    for (let level = 0; level < 20; level += 1) deep = { next: deep };
    expect(collectAssetReferences(deep)).toEqual([]);
    let shallow: unknown = 'asset://found';
    for (let level = 0; level < 10; level += 1) shallow = [shallow];
    expect(collectAssetReferences(shallow)).toEqual(['found']);
  });
});
