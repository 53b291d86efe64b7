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

// Its flags suit AWS Lambda: one process doing everything. Of them, these go:
// - the lenient ones, which would make the test browser more lenient than a user's: no same-origin policy
//   (the console's calls to an engine would pass whatever its CORS says), mixed content allowed, no site
//   isolation;
// - --single-process, which Chromium does not support outside Lambda-like sandboxes: it breaks with
//   several browser contexts and crashes at random;
// - the GPU in the browser process (--in-process-gpu with SwiftShader's GL): a fault in GPU code there
//   takes the whole browser down, at launch too (a SIGSEGV seen in CI). With --disable-gpu no GPU
//   process starts at all: pages composite in software, which headless screenshots need no more than;
// - its --disable-features and --enable-features, since Chromium keeps only the last of a repeated
//   switch: they would replace Playwright's own lists, which its interception and screenshots rely on;
// - its --headless='shell', quotes and all: Playwright passes --headless itself.
// Playwright adds --disable-dev-shm-usage itself: shared memory goes to /tmp, as a CI container's
// /dev/shm (64 MB in Docker) is too small for several renderers. --no-zygote stays: with --no-sandbox,
// which Playwright passes, it starts each child by fork and exec, with no zygote process to lose.
const DROPPED_FLAGS = new Set([
  '--disable-web-security',
  '--allow-running-insecure-content',
  '--disable-site-isolation-trials',
  '--single-process',
  '--in-process-gpu',
  '--use-gl=angle',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--ignore-gpu-blocklist',
]);
const DROPPED_PREFIXES = ['--disable-features=', '--enable-features=', '--headless'];

/** The flags the test browser is launched with. */
export function chromiumArgs(): string[] {
  const kept = sparticuz.args.filter(
    (flag) => !DROPPED_FLAGS.has(flag) && !DROPPED_PREFIXES.some((prefix) => flag.startsWith(prefix)),
  );
  return [...kept, '--disable-gpu'];
}

// A browser that dies before it answers its first command never ran a page or a test: no assertion is
// retried, only the start of a process, which a loaded CI machine can lose (a crash, a timeout).
const LAUNCH_ATTEMPTS = 3;

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
  const launch = () =>
    chromium.launch({
      executablePath: path.join(dir, 'chromium'),
      args: chromiumArgs(),
      headless: true,
      env: { ...process.env, FONTCONFIG_PATH: path.join(dir, 'fonts') },
    });
  const failures: unknown[] = [];
  while (failures.length < LAUNCH_ATTEMPTS) {
    try {
      return await launch();
    } catch (error) {
      failures.push(error);
      console.warn(`Chromium failed to launch (attempt ${failures.length} of ${LAUNCH_ATTEMPTS}): ${String(error)}`);
    }
  }
  throw new AggregateError(failures, `Chromium failed to launch ${LAUNCH_ATTEMPTS} times`);
}
