/** The management API envelope (new-api §7.1): every /api answer is `{ success, message, data }`. */
export interface SuccessEnvelope<T> {
  success: true;
  message: string;
  data: T;
}

export function successEnvelope<T>(data: T, message = ''): SuccessEnvelope<T> {
  return { success: true, message, data };
}
