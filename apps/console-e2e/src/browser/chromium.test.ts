import { createServer, type RequestListener, type Server } from 'node:http';
import { listenOnLoopback } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { chromiumArgs, launchChromium } from './chromium.js';

let browser: Browser;
const servers: Server[] = [];

async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  return (await listenOnLoopback(server)).origin;
}

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  for (const server of servers) server.close();
});

describe('the test browser', () => {
  it('keeps the same-origin policy: another origin is readable only when its CORS allows the page', async () => {
    const pageOrigin = await serve((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end('<h1>page</h1>');
    });
    let allowed = '';
    const apiOrigin = await serve((_request, response) => {
      if (allowed) response.setHeader('access-control-allow-origin', allowed);
      response.end('answer');
    });
    const tab = await browser.newPage();
    await tab.goto(pageOrigin);
    const read = () =>
      tab.evaluate(async (url) => {
        try {
          return await (await fetch(url)).text();
        } catch {
          return 'refused';
        }
      }, apiOrigin);
    expect(await read()).toBe('refused');
    allowed = pageOrigin;
    expect(await read()).toBe('answer');
  });

  it('runs without the Lambda flags that crash or relax it, and without a GPU in the browser process', async () => {
    const args = chromiumArgs();
    for (const flag of ['--single-process', '--in-process-gpu', '--disable-web-security']) {
      expect(args).not.toContain(flag);
    }
    expect(args.filter((flag) => flag.startsWith('--disable-features='))).toEqual([]);
    expect(args).toContain('--disable-gpu');
    // And draws: a page renders and is pictured, in software.
    const tab = await browser.newPage();
    await tab.setContent('<h1 style="color: rgb(200, 0, 0)">drawn</h1>');
    expect((await tab.screenshot()).length).toBeGreaterThan(0);
    expect(await tab.locator('h1').evaluate((element) => getComputedStyle(element).color)).toBe('rgb(200, 0, 0)');
  });

  it('runs two isolated contexts side by side, as two users', async () => {
    const first = await browser.newContext();
    const second = await browser.newContext();
    await first.addCookies([{ name: 'sid', value: 'one', url: 'http://localhost/' }]);
    expect(await second.cookies()).toEqual([]);
    expect((await first.cookies())[0]?.value).toBe('one');
    await Promise.all([first.close(), second.close()]);
  });
});
