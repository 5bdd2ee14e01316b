import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import type { ZodIssue } from 'zod';
import { configFileSchema, type ConfigFile } from './config-file-schema.js';

export class ConfigFileError extends Error {
  constructor(readonly filePath: string, readonly problems: string[]) {
    super(`Config file ${filePath} is invalid:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigFileError';
  }
}

/** Reads a YAML or JSON config file; throws ConfigFileError naming each bad key and the file. */
export async function loadConfigFile(filePath: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(filePath, 'utf8');
  } catch (error) {
    throw new ConfigFileError(filePath, [`cannot be read: ${(error as Error).message}`]);
  }
  return parseConfigText(text, filePath);
}

export function parseConfigText(text: string, filePath: string): ConfigFile {
  let raw: unknown;
  try {
    // YAML is a superset of JSON, so one parser reads both.
    raw = parseYaml(text);
  } catch (error) {
    throw new ConfigFileError(filePath, [`is not valid YAML or JSON: ${(error as Error).message}`]);
  }
  const result = configFileSchema.safeParse(raw ?? {});
  if (!result.success) throw new ConfigFileError(filePath, result.error.issues.map(describeIssue));
  return result.data;
}

function describeIssue(issue: ZodIssue): string {
  const path = issue.path.join('.');
  if (issue.code === 'unrecognized_keys') {
    const where = path === '' ? '' : ` in \`${path}\``;
    return issue.keys.map((key) => `unknown key \`${path === '' ? key : `${path}.${key}`}\`${where}`).join('; ');
  }
  return `\`${path === '' ? '(root)' : path}\`: ${issue.message}`;
}
