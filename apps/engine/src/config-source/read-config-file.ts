// File mode: an engine_config written by hand, in YAML or JSON (JSON is YAML too), with no database.
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { EngineConfigError } from './parse-engine-config.js';

/** The version a file-mode config is served as: a file has no history. */
export const FILE_CONFIG_VERSION = 1;

export async function readConfigFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new EngineConfigError(`ENGINE_CONFIG_FILE ${path} cannot be read: ${(error as Error).message}`);
  }
  try {
    return parse(text);
  } catch (error) {
    throw new EngineConfigError(`ENGINE_CONFIG_FILE ${path} is neither YAML nor JSON: ${(error as Error).message}`);
  }
}
