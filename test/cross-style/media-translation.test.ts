/**
 * Multimodal content in translation (from the multimodal audit): what no vendor but the client's own can
 * take is refused or dropped with a warning, never sent for the upstream to refuse. Clients are the official SDKs; `fixture.primary[style].requests` shows
 * exactly what the upstream received.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import type { WireStyle } from '../fakes/scripted-vendor-wire.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
/** A Gemini Files API URI: readable only with the uploader's Google API key. */
const GEMINI_FILE_URI = 'https://generativelanguage.googleapis.com/v1beta/files/abc123xyz';

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture();
});
afterAll(async () => fixture?.close());

const lastBody = (style: WireStyle) => fixture.primary[style].requests.at(-1)?.body as any;
const lastWarnings = async (): Promise<string> => ((await fixture.logs()).at(-1)?.warnings as string | null) ?? '';
const calls = (style: WireStyle) => fixture.primary[style].requests.length;

/** Sends with @google/genai; returns the error if the gateway refused (or undefined on success). */
async function geminiSend(model: string, parts: any[]): Promise<unknown> {
  try {
    await fixture.sdk.gemini.models.generateContent({ model, contents: [{ role: 'user', parts }] });
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('Gemini Files API fileUri → other vendors (they cannot fetch a Google-authenticated URI)', () => {
  // Other vendors' upload ids (Anthropic file source, Responses/Chat file_id) are dropped with a warning or refused;
  // a Gemini Files API URI is forwarded as a public URL the upstream must download, and fails there.
  it.each(['anthropic', 'openai-chat', 'openai-responses'] as const)('image fileData with a Files API URI → %s: not sent as a URL to fetch; a 400 or a warning', async (style) => {
    const before = calls(style);
    const error = await geminiSend(modelOf[style], [{ text: 'Describe this image' }, { fileData: { fileUri: GEMINI_FILE_URI, mimeType: 'image/png' } }]);
    if (error !== undefined) {
      expect((error as any).status).toBe(400);
      expect(calls(style)).toBe(before);
      return;
    }
    expect(JSON.stringify(lastBody(style))).not.toContain(GEMINI_FILE_URI);
    expect(await lastWarnings()).toMatch(/files\/abc123xyz|Files API/);
  });

  it('PDF fileData with a Files API URI → anthropic: not a document url source Anthropic must fetch', async () => {
    const error = await geminiSend(modelOf.anthropic, [{ text: 'Summarize' }, { fileData: { fileUri: GEMINI_FILE_URI, mimeType: 'application/pdf' } }]);
    if (error !== undefined) return expect((error as any).status).toBe(400);
    expect(JSON.stringify(lastBody('anthropic'))).not.toContain(GEMINI_FILE_URI);
  });
});

describe('image media types the target vendor does not take', () => {
  // @anthropic-ai/sdk Base64ImageSource.media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'.
  const anthropicImageTypes = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

  it('Gemini inlineData image/heic (a type Gemini takes) → anthropic: no base64 image block with media_type image/heic', async () => {
    const error = await geminiSend(modelOf.anthropic, [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/heic', data: PNG } }]);
    if (error !== undefined) return expect((error as any).status).toBe(400);
    const images = lastBody('anthropic').messages.flatMap((m: any) => m.content).filter((b: any) => b.type === 'image' && b.source.type === 'base64');
    for (const image of images) expect(anthropicImageTypes).toContain(image.source.media_type);
  });

  it('Chat client data:image/jpg URL → anthropic: media_type is one Anthropic takes (image/jpeg), not image/jpg', async () => {
    await fixture.sdk.openai.chat.completions.create({
      model: modelOf.anthropic,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: `data:image/jpg;base64,${PNG}` } }] }],
    });
    const image = lastBody('anthropic').messages[0].content.find((b: any) => b.type === 'image');
    expect(anthropicImageTypes).toContain(image.source.media_type);
  });
});

describe('files Chat Completions / Responses refuse are not sent to them as file parts', () => {
  // Chat Completions refuses any file_data that is not a PDF data URL ("Invalid file data … Expected a base64-encoded
  // data URL with an application/pdf MIME type … but got unsupported MIME type"; see
  // test/anthropic-clients/requests-and-usage.test.ts, which fixed this for Anthropic text documents only).
  it.each([
    ['text/plain', Buffer.from('The secret word is plum.').toString('base64')],
    ['video/mp4', 'AAAAIGZ0eXBpc29t'],
    ['audio/ogg', 'T2dnUwACAAAAAAAA'],
  ])('Gemini inlineData %s → openai-chat: no non-PDF file part (text as text, else a 400 or a drop with a warning)', async (mimeType, data) => {
    const error = await geminiSend(modelOf['openai-chat'], [{ text: 'Use the attachment' }, { inlineData: { mimeType, data } }]);
    if (error !== undefined) return expect((error as any).status).toBe(400);
    const parts = lastBody('openai-chat').messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : []));
    const nonPdfFiles = parts.filter((p: any) => p.type === 'file' && !String(p.file.file_data).startsWith('data:application/pdf'));
    expect(nonPdfFiles).toEqual([]);
  });

  it('Gemini inlineData video/mp4 → openai-responses: no input_file with a video (Responses input files are documents)', async () => {
    const error = await geminiSend(modelOf['openai-responses'], [{ text: 'What happens in this clip?' }, { inlineData: { mimeType: 'video/mp4', data: 'AAAAIGZ0eXBpc29t' } }]);
    if (error !== undefined) return expect((error as any).status).toBe(400);
    const parts = lastBody('openai-responses').input.flatMap((item: any) => (Array.isArray(item.content) ? item.content : []));
    expect(parts.filter((p: any) => p.type === 'input_file' && String(p.file_data).startsWith('data:video/'))).toEqual([]);
    expect(await lastWarnings()).toMatch(/video\/mp4/);
  });
});

describe('a user turn that held only media the upstream cannot take', () => {
  // Dropping the turn leaves the conversation ending in an assistant turn: Anthropic reads that as a prefill to
  // continue, so the model silently answers a different request (or, with no turn left, messages: []).
  it('Chat [user text, assistant, user input_audio only] → anthropic: not sent as an assistant prefill', async () => {
    const before = calls('anthropic');
    let status: number | undefined;
    try {
      await fixture.sdk.openai.chat.completions.create({
        model: modelOf.anthropic,
        messages: [
          { role: 'user', content: 'I will send you a recording.' },
          { role: 'assistant', content: 'Sure, send it.' },
          { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }] },
        ],
      });
    } catch (error) {
      status = (error as any).status;
    }
    if (status !== undefined) {
      expect(status).toBe(400);
      expect(calls('anthropic')).toBe(before);
      return;
    }
    const messages = lastBody('anthropic').messages;
    expect(messages.at(-1).role).toBe('user');
  });

  it('Chat [user input_audio only] → anthropic: no request with empty messages', async () => {
    let status: number | undefined;
    try {
      await fixture.sdk.openai.chat.completions.create({
        model: modelOf.anthropic,
        messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }] }],
      });
    } catch (error) {
      status = (error as any).status;
    }
    if (status !== undefined) return expect(status).toBe(400);
    expect(lastBody('anthropic').messages.length).toBeGreaterThan(0);
  });
});
