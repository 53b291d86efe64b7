import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../browser/chromium.js';
import { assertAccessible } from './accessibility.js';

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium();
  page = await browser.newPage();
});

afterAll(async () => {
  await browser?.close();
});

describe('assertAccessible', () => {
  it('passes a page whose controls have names and whose text has contrast', async () => {
    await page.setContent(
      '<html lang="en"><head><title>Agents</title></head><body><main><h1>Agents</h1><label>Name <input></label><button>Save</button></main></body></html>',
    );
    await expect(assertAccessible(page, 'a labelled form')).resolves.toBeUndefined();
  });

  it('fails on a serious violation, naming the rule and the element', async () => {
    await page.setContent(
      '<html lang="en"><head><title>Agents</title></head><body><main><h1>Agents</h1><input id="unnamed"><button></button></main></body></html>',
    );
    const failure = assertAccessible(page, 'an unlabelled form');
    await expect(failure).rejects.toThrow(/on an unlabelled form:[\s\S]*critical: (label|button-name)/);
    await expect(failure).rejects.toThrow(/#unnamed/);
  });
});
