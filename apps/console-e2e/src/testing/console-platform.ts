// What each browser suite stands on: its own database, the platform launched on it as `pnpm start` does,
// and a headless Chromium. One per suite file; close() ends them in reverse order.
import { createTestDatabase, ScratchDirs, type TestDatabase } from '@agentplane/db/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../browser/chromium.js';
import { type LaunchedPlatform, launchPlatform } from '../platform/launched-platform.js';

export type ConsolePlatform = LaunchedPlatform & {
  database: TestDatabase;
  browser: Browser;
  /** A fresh browser profile (its own cookies), as another person at another computer. */
  newVisitor: () => Promise<{ context: BrowserContext; page: Page }>;
  close: () => Promise<void>;
};

// A viewport the screenshots and the agents page's first screen are judged at.
const VIEWPORT = { width: 1280, height: 800 };

export async function startConsolePlatform(options: { env?: Record<string, string> } = {}): Promise<ConsolePlatform> {
  const scratch = new ScratchDirs();
  const database = await createTestDatabase();
  const closers: (() => Promise<void>)[] = [() => database.drop(), () => scratch.removeAll()];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };
  try {
    const platform = await launchPlatform({
      databaseUrl: database.url,
      dataDir: await scratch.make('console-e2e-'),
      env: options.env,
    });
    closers.push(platform.stop);
    const browser = await launchChromium();
    closers.push(() => browser.close());
    const newVisitor = async () => {
      const context = await browser.newContext({ viewport: VIEWPORT, locale: 'en-GB', timezoneId: 'UTC' });
      // Waits are on causes, bounded generously for a loaded machine: an element that never comes fails.
      context.setDefaultTimeout(60_000);
      const page = await context.newPage();
      // A native confirm() ("Delete this agent?") is answered yes, as the person pressing Delete would.
      page.on('dialog', (dialog) => void dialog.accept());
      return { context, page };
    };
    return { ...platform, database, browser, newVisitor, close };
  } catch (error) {
    await close();
    throw error;
  }
}
