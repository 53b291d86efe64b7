// Pictures of the console's main pages, taken on the way through the journey. They replace the README's
// (docs/screenshots/) only when asked, UPDATE_SCREENSHOTS=1, so that a test run leaves the work tree
// clean; otherwise they go to this package's git-ignored screenshots/, to look at after a run.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

const README_SCREENSHOTS = fileURLToPath(new URL('../../../../docs/screenshots/', import.meta.url));
const LATEST_SCREENSHOTS = fileURLToPath(new URL('../../screenshots/', import.meta.url));

export function screenshotsDir(): string {
  return process.env.UPDATE_SCREENSHOTS === '1' ? README_SCREENSHOTS : LATEST_SCREENSHOTS;
}

/** Saves the page as `<name>.png` and returns the file's path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  const dir = screenshotsDir();
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true, animations: 'disabled', caret: 'hide' });
  return file;
}
