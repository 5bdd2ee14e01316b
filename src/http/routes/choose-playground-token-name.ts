const baseName = 'playground';

/**
 * Pure: the name of a new playground token — `playground`, or `playground-2`, `-3`… when the user already
 * has an API key of that name (names are unique per user, and that key must not be taken over).
 */
export function choosePlaygroundTokenName(takenNames: readonly string[]): string {
  const taken = new Set(takenNames);
  if (!taken.has(baseName)) return baseName;
  for (let suffix = 2; ; suffix += 1) {
    const name = `${baseName}-${suffix}`;
    if (!taken.has(name)) return name;
  }
}
