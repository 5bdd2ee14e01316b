/**
 * Type-confusion sweep of the image and task submit routes: images generations and JSON
 * edits, OpenAI video (`/v1/videos`, `/v1/video/generations`) on Sora, Kling and Tencent VOD channels,
 * Kling's native text2video / image2video, Suno music and lyrics, and the Midjourney submits that need no
 * origin task. Same bar as the text-route sweep (checkCase); the task envelope is `{code, message, data:null}`
 * on Kling native and Suno, Midjourney's `{code, description, type, result:null}` on /mj.
 */
import { keys, startTaskRoutesFixture } from './task-routes-fixture.js';
import { casesOf, PNG, sweep, type RouteUnderTest } from './type-confusion-cases.js';

const dataUrl = `data:image/png;base64,${PNG}`;
const imageExtra = ['background', 'moderation', 'output_compression', 'output_format', 'partial_images', 'stream', 'style', 'user', 'input_fidelity', 'mask', 'sequential_image_generation', 'sequential_image_generation_options', 'sequential_image_generation_options.max_images', 'watermark', 'seed', 'guidance_scale'];
const videoExtra = ['seconds', 'size', 'duration', 'input_reference', 'image', 'images', 'metadata', 'metadata.output_config', 'metadata.video_url', 'resolution', 'aspect_ratio', 'fps', 'negative_prompt'];

const routes: RouteUnderTest[] = [
  { label: 'images gen gpt-image-1', path: '/v1/images/generations', style: 'openai', body: { model: 'gpt-image-1', prompt: 'a cat', n: 1, size: '1024x1024', quality: 'low', response_format: 'b64_json' }, extra: imageExtra },
  { label: 'images gen dall-e-3', path: '/v1/images/generations', style: 'openai', body: { model: 'dall-e-3', prompt: 'a cat', n: 1, size: '1024x1024', quality: 'standard' } },
  { label: 'images edit json', path: '/v1/images/edits', style: 'openai', body: { model: 'gpt-image-1', prompt: 'a hat', image: [dataUrl, 'https://img.example/a.png'], images: [{ image_url: dataUrl }], n: 1, size: '1024x1024', quality: 'low' }, extra: imageExtra },
  { label: 'videos sora', path: '/v1/videos', style: 'openai', body: { model: 'sora-2', prompt: 'a cat', seconds: '4', size: '720x1280' }, extra: videoExtra },
  { label: 'videos kling', path: '/v1/videos', style: 'openai', body: { model: 'kling-v2-6', prompt: 'a cat', seconds: '5', size: '1280x720', metadata: { negative_prompt: 'x', cfg_scale: 0.5 } }, extra: videoExtra },
  { label: 'videos vod', path: '/v1/videos', style: 'openai', body: { model: 'Kling-2.6', prompt: 'a cat', seconds: 5, size: '720p', metadata: { output_config: { resolution: '1080P' } } }, extra: videoExtra },
  { label: 'video generations sora', path: '/v1/video/generations', style: 'openai', body: { model: 'sora-2', prompt: 'a cat', duration: 4, image: dataUrl, metadata: { a: 1 } }, extra: videoExtra },
  { label: 'kling text2video', path: '/kling/v1/videos/text2video', style: 'task', body: { model_name: 'kling-v2-6', prompt: 'a cat', duration: '5', aspect_ratio: '16:9', mode: 'std', camera_control: { type: 'simple', config: { zoom: 1 } } } },
  { label: 'kling image2video', path: '/kling/v1/videos/image2video', style: 'task', body: { model_name: 'kling-v2-6', prompt: 'a cat', image: dataUrl, image_tail: dataUrl, duration: '5' } },
  { label: 'suno music', path: '/suno/submit/music', style: 'task', body: { prompt: '[Verse] rain', tags: 'lofi', mv: 'chirp-v4', title: 't', make_instrumental: false }, extra: ['gpt_description_prompt', 'continue_at', 'continue_clip_id', 'task_id', 'negative_tags'] },
  { label: 'suno lyrics', path: '/suno/submit/lyrics', style: 'task', body: { prompt: 'a song about tea' } },
  { label: 'mj imagine', path: '/mj/submit/imagine', style: 'mj', body: { prompt: 'a cat', base64Array: [dataUrl], botType: 'MID_JOURNEY', state: 's' }, extra: ['notifyHook', 'accountFilter', 'accountFilter.modes'] },
  { label: 'mj blend', path: '/mj/submit/blend', style: 'mj', body: { base64Array: [dataUrl, dataUrl], dimensions: 'SQUARE' } },
  { label: 'mj describe', path: '/mj/submit/describe', style: 'mj', body: { base64: dataUrl } },
  { label: 'mj swap', path: '/mj/insight-face/swap', style: 'mj', body: { sourceBase64: dataUrl, targetBase64: dataUrl } },
  { label: 'mj video', path: '/mj/submit/video', style: 'mj', body: { prompt: 'a cat', image: dataUrl, motion: 'low' } },
  { label: 'mj upload', path: '/mj/submit/upload-discord-images', style: 'mj', body: { base64Array: [dataUrl] } },
  { label: 'mj change', path: '/mj/submit/change', style: 'mj', body: { taskId: 'no-such-task', action: 'UPSCALE', index: 1 } },
  { label: 'mj action', path: '/mj/submit/action', style: 'mj', body: { taskId: 'no-such-task', customId: 'MJ::JOB::upsample::1::abc' } },
];

const cases = casesOf(routes);

sweep('image and task submit routes: every field path × every hostile value', cases, startTaskRoutesFixture, keys.good);
