import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import { buildAigcVideoTask, type AigcVideoInput } from './build-aigc-video-task.js';

const base: AigcVideoInput = { fields: {}, prompt: 'p', seconds: 5, size: undefined, clientModel: 'Kling-2.6', upstreamModel: 'Kling-2.6', subAppId: 7, sessionId: 'task_x' };

describe('buildAigcVideoTask', () => {
  it('asks for what a combined billing name is priced for, and refuses a config that contradicts it', () => {
    expect(buildAigcVideoTask({ ...base, clientModel: 'kling-2.6-1080p-audio' }).OutputConfig).toEqual({ Resolution: '1080P', AudioGeneration: 'Enabled', Duration: 5 });
    expect(buildAigcVideoTask({ ...base, clientModel: 'vidu-q2-pro-1080p-offpeak', upstreamModel: 'Vidu-q2-pro' }).OutputConfig).toEqual({ Resolution: '1080P', OffPeak: 'Enabled', Duration: 5 });
    expect(buildAigcVideoTask({ ...base, clientModel: 'kling-2.6-1080p-audio', fields: { metadata: { output_config: { resolution: '1080p' } } } }).OutputConfig).toMatchObject({ Resolution: '1080P' });
    expect(() => buildAigcVideoTask({ ...base, clientModel: 'kling-2.6-720p', fields: { metadata: { output_config: { resolution: '1080P' } } } })).toThrow(GatewayError);
    expect(() => buildAigcVideoTask({ ...base, clientModel: 'kling-2.6-audio', fields: { metadata: { output_config: { audio_generation: 'Disabled' } } } })).toThrow(GatewayError);
  });

  it('splits the model at its first dash', () => {
    expect(buildAigcVideoTask({ ...base, upstreamModel: 'Vidu-q2-pro' })).toMatchObject({ ModelName: 'Vidu', ModelVersion: 'q2-pro' });
    expect(buildAigcVideoTask({ ...base, upstreamModel: 'Hailuo-2.3-fast' })).toMatchObject({ ModelName: 'Hailuo', ModelVersion: '2.3-fast' });
    expect(() => buildAigcVideoTask({ ...base, upstreamModel: 'sora' })).toThrow(GatewayError);
    expect(() => buildAigcVideoTask({ ...base, upstreamModel: 'Kling-' })).toThrow(GatewayError);
  });

  it('turns references into FileInfos: first frame, references, a reference video, file ids, explicit infos', () => {
    const body = buildAigcVideoTask({
      ...base,
      fields: { image: 'https://x.example/a.png', images: ['5285485487985271487'], metadata: { file_infos: [{ type: 'Url', category: 'Video', url: 'https://x.example/v.mp4', reference_type: 'feature' }] } },
    });
    expect(body.FileInfos).toEqual([
      { Type: 'Url', Category: 'Image', Url: 'https://x.example/a.png', Usage: 'FirstFrame' },
      { Type: 'File', Category: 'Image', FileId: '5285485487985271487', Usage: 'Reference' },
      { Type: 'Url', Category: 'Video', Url: 'https://x.example/v.mp4', ReferenceType: 'feature' },
    ]);
  });

  it('refuses data: URIs, more than 3 files, and explicit infos missing their Url or FileId', () => {
    const param = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return (error as GatewayError).param;
      }
      return 'no error';
    };
    expect(param(() => buildAigcVideoTask({ ...base, fields: { input_reference: 'data:image/png;base64,AAAA' } }))).toBe('input_reference');
    expect(param(() => buildAigcVideoTask({ ...base, fields: { images: ['a', 'b', 'c', 'd'] } }))).toBe('metadata.file_infos');
    expect(param(() => buildAigcVideoTask({ ...base, fields: { metadata: { file_infos: [{ Type: 'Url' }] } } }))).toBe('metadata.file_infos');
    expect(param(() => buildAigcVideoTask({ ...base, fields: { metadata: { FileInfos: [{ Type: 'File', Category: 'Image' }] } } }))).toBe('metadata.file_infos');
  });

  it('writes OutputConfig in Tencent’s names, with Duration always the seconds priced and size hints only where the config is silent', () => {
    const body = buildAigcVideoTask({ ...base, seconds: 10, size: '720x1280', fields: { metadata: { offpeak: true, output_config: { duration: 3, resolution: '1080P', person_generation: 'Disallowed', StorageMode: 'Permanent' } } } });
    expect(body.OutputConfig).toEqual({ Duration: 10, Resolution: '1080P', AspectRatio: '9:16', PersonGeneration: 'Disallowed', StorageMode: 'Permanent', OffPeak: 'Enabled' });
    expect(buildAigcVideoTask({ ...base, size: '1080p' }).OutputConfig).toEqual({ Duration: 5, Resolution: '1080P' });
    expect(buildAigcVideoTask({ ...base, size: '16:9' }).OutputConfig).toEqual({ Duration: 5, AspectRatio: '16:9' });
  });
});
