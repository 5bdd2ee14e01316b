/** Extensions of the file types the OpenAI APIs take inline; others get none. */
const extensions: Record<string, string> = { 'application/pdf': 'pdf', 'text/plain': 'txt', 'text/markdown': 'md', 'text/csv': 'csv', 'application/json': 'json' };

/**
 * Pure: the filename sent with an inline file that came without one (an Anthropic document without a
 * `title`, a Gemini part): OpenAI's Chat `file` and Responses `input_file` refuse inline `file_data` without
 * a filename (400 "Missing required parameter"), and other styles have none to give.
 */
export function placeholderFilename(mediaType: string | undefined): string {
  const extension = mediaType === undefined ? undefined : extensions[mediaType.toLowerCase().split(';')[0]!.trim()];
  return extension === undefined ? 'document' : `document.${extension}`;
}
