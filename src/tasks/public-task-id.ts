import { randomBytes } from 'node:crypto';

const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * A task's public id: `task_` and 32 random letters and digits (protocols.md §0). Clients never see the
 * upstream's id, so they cannot reach a task through another channel or guess another caller's.
 */
export function generatePublicTaskId(): string {
  const bytes = randomBytes(32);
  let id = 'task_';
  // 248 = 4 × 62: bytes below it map evenly; the few above are re-drawn.
  for (let index = 0; id.length < 37; index += 1) {
    const byte = index < bytes.length ? (bytes[index] as number) : (randomBytes(1)[0] as number);
    if (byte < 248) id += alphabet[byte % 62];
  }
  return id;
}

/** What every public task id looks like. */
export const publicTaskIdPattern = /^task_[A-Za-z0-9]{32}$/;
