import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import { videoTaskPrice } from '../../tasks/video-task-price.js';
import { fixedVideoSeconds, priceNamesOf, readVideoRequest, unifiedToOpenaiVideoBody } from './video-request.js';

const read = (fields: Record<string, unknown>, requireModel = false) => readVideoRequest(fields, { multipart: false, requireModel });

describe('readVideoRequest', () => {
  it('takes the length from seconds, duration, metadata, then the family default', () => {
    expect(read({ prompt: 'p', seconds: '8', duration: 12 }).seconds).toBe(8);
    expect(read({ prompt: 'p', duration: 12 })).toMatchObject({ seconds: 12, rewrites: { seconds: '12' } });
    expect(read({ prompt: 'p', metadata: { video_duration: 6 } }).seconds).toBe(6);
    expect(read({ prompt: 'p' })).toMatchObject({ model: 'sora-2', seconds: 4, rewrites: { seconds: '4' } });
    expect(read({ prompt: 'p', model: 'Kling-2.6' }).seconds).toBe(5);
    expect(read({ prompt: 'p', seconds: '8' }).rewrites).toEqual({});
  });

  it('makes and bills a fixed-length model at its length, whatever was asked (spec §4.9.2, §4.9.3)', () => {
    expect(fixedVideoSeconds('grok-video-3')).toBeUndefined();
    expect(fixedVideoSeconds('Grok-Video-3-Pro')).toBe(10);
    expect(fixedVideoSeconds('grok-video-3-max')).toBe(15);
    expect(fixedVideoSeconds('sora2-pro-landscape-25s')).toBe(25);
    expect(fixedVideoSeconds('sora-2-pro')).toBeUndefined();
    expect(read({ prompt: 'p', model: 'grok-video-3-pro', seconds: '4' })).toMatchObject({ seconds: 10, billedSeconds: 10, rewrites: { seconds: '10' } });
    expect(read({ prompt: 'p', model: 'grok-video-3', seconds: '6' })).toMatchObject({ seconds: 6, rewrites: {} });
    expect(readVideoRequest({ prompt: 'p', model: 'fast-video' }, { multipart: false, requireModel: false, mappedFixedSeconds: 15 })).toMatchObject({ seconds: 15, billedSeconds: 15 });
    // What was asked is still checked.
    expect(() => read({ prompt: 'p', model: 'grok-video-3-max', seconds: 'ten' })).toThrow(GatewayError);
  });

  it('bills a lip-sync task under 5 seconds as 5, and asks for what was sent', () => {
    expect(read({ prompt: 'p', model: 'kling-identify-face', seconds: 3 })).toMatchObject({ seconds: 3, billedSeconds: 5 });
    expect(read({ prompt: 'p', model: 'Kling-2.6', seconds: 2, metadata: { scene_type: 'lip_sync' } })).toMatchObject({ seconds: 2, billedSeconds: 5 });
    expect(read({ prompt: 'p', model: 'Kling-2.6', seconds: 2 })).toMatchObject({ billedSeconds: 2 });
  });

  it('refuses a missing prompt, odd lengths and sizes, and a missing model where one is required', () => {
    const param = (fields: Record<string, unknown>, requireModel = false) => {
      try {
        read(fields, requireModel);
      } catch (error) {
        return (error as GatewayError).param;
      }
      return 'no error';
    };
    expect(param({})).toBe('prompt');
    expect(param({ prompt: ' ' })).toBe('prompt');
    expect(param({ prompt: 'p', seconds: '8.0' })).toBe('seconds');
    expect(param({ prompt: 'p', seconds: 61 })).toBe('seconds');
    expect(param({ prompt: 'p', duration: 0 })).toBe('duration');
    expect(param({ prompt: 'p', size: '1280x720; drop' })).toBe('size');
    expect(param({ prompt: 'p' }, true)).toBe('model');
  });

  it('builds the Sora-style body of a unified submit', () => {
    const request = read({ model: 'm', prompt: 'p', images: ['https://a/1.png'], size: '720x1280', duration: 8 }, true);
    expect(unifiedToOpenaiVideoBody({ images: ['https://a/1.png'] }, request, 'up')).toEqual({ model: 'up', prompt: 'p', seconds: '8', size: '720x1280', input_reference: { image_url: 'https://a/1.png' } });
  });
});

describe('videoTaskPrice', () => {
  const prices = new Map([
    ['sora-2', { model: 'sora-2', perSecond: 0.1 }],
    ['sora-2@1792x1024', { model: 'sora-2@1792x1024', perSecond: 0.5 }],
    ['flat', { model: 'flat', perCall: 0.25 }],
    ['tokens', { model: 'tokens', input: 1 }],
  ]);
  it('prices per second, per size when priced apart, or per task', () => {
    expect(videoTaskPrice(prices, 'sora-2', [], 8)).toEqual({ price: { model: 'sora-2', perCall: 0.1 }, calls: 8 });
    expect(videoTaskPrice(prices, 'sora-2', ['sora-2@1792x1024'], 8)).toEqual({ price: { model: 'sora-2@1792x1024', perCall: 0.5 }, calls: 8 });
    expect(videoTaskPrice(prices, 'sora-2', ['sora-2@720x1280'], 8)).toEqual({ price: { model: 'sora-2', perCall: 0.1 }, calls: 8 });
    expect(videoTaskPrice(prices, 'flat', [], 12)).toEqual({ price: { model: 'flat', perCall: 0.25 }, calls: 1 });
    expect(videoTaskPrice(prices, 'tokens', [], 4)).toBeUndefined();
    expect(videoTaskPrice(prices, 'unknown', [], 4)).toBeUndefined();
  });
});

describe('priceNamesOf', () => {
  it('tries <model>@<size> for a Sora-style model, and <model>@<mode> for a mode', () => {
    expect(priceNamesOf('sora-2', {}, false, '1792x1024')).toEqual(['sora-2@1792x1024']);
    expect(priceNamesOf('kling-v2-1', { mode: 'Pro' }, false, undefined)).toEqual(['kling-v2-1@pro']);
    expect(priceNamesOf('kling-v2-1', { mode: 'std' }, false, '16:9')).toEqual(['kling-v2-1@16:9', 'kling-v2-1@std']);
    expect(priceNamesOf('kling-v2-1', { mode: 'no spaces please' }, false, undefined)).toEqual([]);
  });

  it('prices a domestic base model asked for sound or off-peak as its combined name, then its tier', () => {
    expect(priceNamesOf('kling-2.6', { output_config: { resolution: '1080P', audio_generation: 'Enabled' } }, true, undefined)).toEqual(['kling-2.6-1080p-audio', 'kling-2.6@1080p']);
    expect(priceNamesOf('vidu-q2-pro', { offpeak: true }, true, '1920x1080')).toEqual(['vidu-q2-pro-1080p-offpeak', 'vidu-q2-pro@1080p']);
    expect(priceNamesOf('kling-2.6', { OutputConfig: { AudioGeneration: 'enabled', OffPeak: 'Enabled' } }, true, undefined)).toEqual(['kling-2.6-audio-offpeak']);
    expect(priceNamesOf('kling-2.6', { output_config: { resolution: '720P' } }, true, undefined)).toEqual(['kling-2.6@720p']);
    // A combined name already says it: nothing is added twice.
    expect(priceNamesOf('kling-2.6-1080p-audio', { output_config: { audio_generation: 'Enabled' } }, true, undefined)).toEqual([]);
  });
});
