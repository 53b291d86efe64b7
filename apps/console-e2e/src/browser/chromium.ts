// Headless Chromium from the npm registry: @sparticuz/chromium ships it brotli-compressed inside the
// package, so nothing is downloaded at run time. It is unpacked once per package version, atomically,
// because test workers and concurrent runs on one machine would otherwise launch a half-written binary.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import sparticuz from '@sparticuz/chromium';
import { type Browser, chromium } from 'playwright-core';

// Its flags suit AWS Lambda. These would make the test browser more lenient than a user's: no same-origin
// policy (the console's calls to an engine would pass whatever its CORS says), mixed content allowed, and
// everything in one process, which breaks with several browser contexts.
const LENIENT_FLAGS = new Set([
  '--disable-web-security',
  '--allow-running-insecure-content',
  '--disable-site-isolation-trials',
  '--single-process',
]);

const ENTRY = createRequire(import.meta.url).resolve('@sparticuz/chromium');
// The package exports no package.json: read it beside its entry point (build/index.js).
const { version } = JSON.parse(readFileSync(path.join(path.dirname(ENTRY), '..', 'package.json'), 'utf8')) as {
  version: string;
};
const execFileAsync = promisify(execFile);

/** The unpacked browser's directory: its `chromium` binary, its fonts, SwiftShader. */
async function unpackedChromium(): Promise<string> {
  const dir = path.join(tmpdir(), `agentplane-chromium-${version}`);
  if (existsSync(path.join(dir, 'chromium'))) return dir;
  // The package unpacks into os.tmpdir(): a child process whose TMPDIR is a staging directory of our own
  // unpacks it there, then one rename moves it into place, which fails harmlessly if another got there first.
  const staging = await mkdtemp(path.join(tmpdir(), 'agentplane-chromium-staging-'));
  const unpack = `import(${JSON.stringify(pathToFileURL(ENTRY).href)}).then((m) => m.default.executablePath())`;
  await execFileAsync(process.execPath, ['--input-type=module', '-e', unpack], {
    env: { ...process.env, TMPDIR: staging },
  });
  // The shipped fonts.conf names /tmp/fonts; ours names where the fonts are, so pages render the same
  // on every machine whatever fonts it has.
  await writeFile(
    path.join(staging, 'fonts', 'fonts.conf'),
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>${dir}/fonts/fonts</dir><cachedir>${dir}/fonts-cache</cachedir></fontconfig>\n`,
  );
  try {
    await rename(staging, dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    await rm(staging, { recursive: true, force: true });
  }
  return dir;
}

/** A headless Chromium as strict as a user's browser (same-origin policy on), with its own fonts. */
export async function launchChromium(): Promise<Browser> {
  const dir = await unpackedChromium();
  return chromium.launch({
    executablePath: path.join(dir, 'chromium'),
    args: sparticuz.args.filter((flag) => !LENIENT_FLAGS.has(flag)),
    headless: true,
    env: { ...process.env, FONTCONFIG_PATH: path.join(dir, 'fonts') },
  });
}
