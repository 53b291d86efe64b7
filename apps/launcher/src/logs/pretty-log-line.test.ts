// The formatter on the lines the services really write: server-kit's pino logger and its request logger.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, requestLogger } from '@agentplane/server-kit';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { formatLogLine } from './pretty-log-line.js';

const written: string[] = [];
const logger = createLogger({
  name: 'engine',
  destination: { write: (line: string) => written.push(line.trimEnd()) },
});
let server: Server;
let origin: string;

beforeAll(async () => {
  const log = requestLogger(logger);
  server = createServer((req, res) => {
    log(req, res);
    res.statusCode = req.url?.startsWith('/missing') ? 404 : 200;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The lines logged while `act` runs. */
async function linesOf(act: () => unknown): Promise<string[]> {
  const from = written.length;
  await act();
  return written.slice(from);
}

const plain = (line: string) => formatLogLine(line, { color: false });
const CLOCK = '\\d\\d:\\d\\d:\\d\\d\\.\\d{3}';

describe('formatLogLine', () => {
  it('prints a request as one line: time, level, method, URL, status and duration', async () => {
    const [line] = await linesOf(() => fetch(`${origin}/agent/runs?limit=5`));
    expect(line).toMatch(/^\{.*"req":/);
    const text = plain(line ?? '');
    expect(text).toMatch(new RegExp(`^${CLOCK} INFO  GET /agent/runs\\?limit=5 200 \\d+ms$`));
    expect(text).not.toContain('\n');
  });

  it('prints a refused request at WARN, with no pid, hostname or request id', async () => {
    const [line] = await linesOf(() => fetch(`${origin}/missing`));
    const text = plain(line ?? '');
    expect(text).toMatch(new RegExp(`^${CLOCK} WARN  GET /missing 404 \\d+ms$`));
    for (const noise of ['pid', 'hostname', 'request completed', JSON.parse(line ?? '{}').req.id]) {
      expect(text).not.toContain(noise);
    }
  });

  it('prints a message with its fields as key=value, strings with spaces quoted', async () => {
    const [line] = await linesOf(() =>
      logger.warn(
        { agent_id: 'a1', unrouted: 2, detail: 'two words', scopes: ['agent'] },
        'WhatsApp messages unrouted',
      ),
    );
    expect(plain(line ?? '')).toMatch(
      new RegExp(
        `^${CLOCK} WARN  WhatsApp messages unrouted agent_id=a1 unrouted=2 detail="two words" scopes=\\["agent"\\]$`,
      ),
    );
  });

  it("prints an error's type and message, and its stack on the lines after", async () => {
    const [line] = await linesOf(() => logger.error({ err: new TypeError('no such thing') }, 'run failed'));
    const [first, ...stack] = plain(line ?? '').split('\n');
    expect(first).toMatch(new RegExp(`^${CLOCK} ERROR run failed err="TypeError: no such thing"$`));
    expect(stack[0]).toBe('    TypeError: no such thing');
    expect(stack.slice(1).every((frame) => frame.startsWith('        at '))).toBe(true);
  });

  it('colours the level and dims the time on a terminal only', async () => {
    const [line] = await linesOf(() => logger.info('engine listening'));
    expect(formatLogLine(line ?? '', { color: true })).toMatch(
      new RegExp(`^\\x1b\\[2m${CLOCK}\\x1b\\[0m \\x1b\\[32mINFO \\x1b\\[0m engine listening$`),
    );
    expect(plain(line ?? '')).not.toContain('\x1b');
  });

  it('passes on what is not a pino line as it came', () => {
    for (const line of ['Error: Cannot find module', '{"not":"pino"}', '{ broken json', '']) {
      expect(plain(line)).toBe(line);
    }
  });
});
