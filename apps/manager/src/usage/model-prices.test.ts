// The price table: the shipped defaults load, MODEL_PRICES_FILE replaces them, and a file that cannot
// be read or is not a valid table stops the manager's start with a message naming the file and the fault.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@agentplane/server-kit';
import { describe, expect, it } from '@jest/globals';
import { loadManagerConfig } from '../config.js';

const base = { DATABASE_URL: 'postgresql://localhost/agentplane', SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') };
const dir = mkdtempSync(join(tmpdir(), 'model-prices-'));

function pricesFile(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const loadWith = (file: string) => () => loadManagerConfig({ ...base, MODEL_PRICES_FILE: file });

describe('the model price table', () => {
  it('ships defaults for common OpenAI models, in USD per million tokens', () => {
    const prices = loadManagerConfig(base).modelPrices;
    expect(prices['openai/gpt-4o']).toEqual({ input_per_million_usd: 2.5, output_per_million_usd: 10 });
    expect(Object.keys(prices)).toEqual(expect.arrayContaining(['openai/gpt-4o-mini', 'openai/gpt-4.1', 'openai/o3']));
  });

  it("takes the operator's file from MODEL_PRICES_FILE instead", () => {
    const file = pricesFile(
      'own.json',
      JSON.stringify({ models: { 'azure/gpt-4o': { input_per_million_usd: 3, output_per_million_usd: 12 } } }),
    );
    expect(loadWith(file)().modelPrices).toEqual({
      'azure/gpt-4o': { input_per_million_usd: 3, output_per_million_usd: 12 },
    });
  });

  it('refuses a missing file, a file that is not JSON, and a table with a bad entry, saying which', () => {
    expect(loadWith(join(dir, 'missing.json'))).toThrow(/MODEL_PRICES_FILE: cannot read .*missing\.json \(ENOENT\)/);
    expect(loadWith(pricesFile('broken.json', '{"models":'))).toThrow(/MODEL_PRICES_FILE: .*broken\.json is not JSON/);
    const negative = { models: { 'openai/gpt-4o': { input_per_million_usd: -1, output_per_million_usd: 10 } } };
    expect(loadWith(pricesFile('negative.json', JSON.stringify(negative)))).toThrow(
      /negative\.json is not a valid price table:\n {2}models\.openai\/gpt-4o\.input_per_million_usd: /,
    );
    const unnamed = { models: { 'gpt-4o': { input_per_million_usd: 1, output_per_million_usd: 1 } } };
    expect(loadWith(pricesFile('unnamed.json', JSON.stringify(unnamed)))).toThrow(/"<provider>\/<model name>"/);
    expect(loadWith(pricesFile('unnamed.json', JSON.stringify(unnamed)))).toThrow(ConfigError);
  });
});
