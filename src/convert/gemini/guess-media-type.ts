/**
 * Gemini's `fileData` needs a `mimeType`, which a canonical URL source does not carry. The URL's file
 * extension is the only hint; undefined when it has none the Gemini API accepts.
 */
const mediaTypeByExtension: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  txt: 'text/plain',
  mp3: 'audio/mp3',
  wav: 'audio/wav',
  mp4: 'video/mp4',
};

export function guessMediaType(url: string): string | undefined {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // not an absolute URL: read the text as a path
  }
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return extension !== undefined && Object.hasOwn(mediaTypeByExtension, extension) ? mediaTypeByExtension[extension] : undefined;
}
