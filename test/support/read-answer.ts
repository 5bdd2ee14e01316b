/** A response read whole: status, headers, the text, and that text as JSON (undefined when it is not JSON). */
export interface ReadAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function readAnswer(response: Response): Promise<ReadAnswer> {
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}
