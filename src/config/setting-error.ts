/**
 * A setting the operator got wrong (an environment variable, a command-line flag, a config entry that
 * names something missing): the CLI prints its message alone, without a stack, and exits 1.
 */
export class SettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingError';
  }
}
