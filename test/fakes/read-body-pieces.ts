/** Reads a body chunk by chunk, keeping what arrived before an error and when each piece came. */
export async function readBodyPieces(response: Response): Promise<{ pieces: Array<{ text: string; at: number }>; error: unknown }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const pieces: Array<{ text: string; at: number }> = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { pieces, error: undefined };
      pieces.push({ text: decoder.decode(value, { stream: true }), at: performance.now() });
    }
  } catch (error) {
    return { pieces, error };
  }
}
