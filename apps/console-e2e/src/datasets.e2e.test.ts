// The Datasets pages: a member creates a dataset, adds an item with the JSON editor, imports a JSONL
// file, and reads the earlier version beside the current one.
import { randomUUID } from 'node:crypto';
import type { TDataset } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signUpInConsole } from './console/account-flows.js';
import { arriveAt, callApiFromPage, control, field, inspect, navigateTo, shown } from './console/console-ui.js';
import { type ConsolePlatform, startConsolePlatform } from './testing/console-platform.js';

let platform: ConsolePlatform;

beforeAll(async () => {
  platform = await startConsolePlatform();
});

afterAll(async () => {
  await platform?.close();
});

describe('the Datasets pages', () => {
  it('creates a dataset, adds and imports items, and shows each version', async () => {
    const { page } = await platform.newVisitor();
    await signUpInConsole(page, platform.consoleUrl, {
      email: `datasets-${randomUUID()}@example.test`,
      password: 'a datasets password',
    });
    await navigateTo(page, 'Datasets');
    await field(page, 'Name').fill('Support');
    await control(page, 'Create dataset').click();
    await arriveAt(page, 'Support');

    await control(page, 'Add item').click();
    await shown(field(page, 'New item (JSON)'), 'the item editor');
    await control(page, 'Add item').click();
    const version2 = page.getByRole('table', { name: 'Items of version 2' });
    await shown(version2.getByText('Where is my invoice?'), 'the added item');

    await field(page, 'JSONL file').setInputFiles({
      name: 'more.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from('{"input":[{"role":"user","content":"How do I pay?"}],"expected":{"reply":"By card."}}\n'),
    });
    await control(page, 'Import').click();
    const version3 = page.getByRole('table', { name: 'Items of version 3' });
    await shown(version3.getByText('How do I pay?'), 'the imported item');
    await inspect(page, 'a dataset with its items', { screenshot: 'dataset-items' });

    await field(page, 'Version').selectOption('2');
    await shown(version2.getByText('Where is my invoice?'), 'version 2 again');
    expect(await version2.getByText('How do I pay?').count()).toBe(0);

    const [stored] = (await callApiFromPage<TDataset[]>(page, 'GET', '/datasets')).body;
    expect(stored).toMatchObject({ name: 'Support', version: 3, item_count: 2 });
  });
});
