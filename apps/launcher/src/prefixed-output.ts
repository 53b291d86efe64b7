import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { LogFormat } from './logs/log-format.js';
import { formatLogLine } from './logs/pretty-log-line.js';

const COLORS = ['\x1b[36m', '\x1b[35m', '\x1b[33m', '\x1b[32m'];
const RESET = '\x1b[0m';

/**
 * Writes each line of a child's output to ours behind `[name]`, coloured on a terminal; its pino lines
 * made readable when the format is `pretty`.
 */
export function pipeWithPrefix(stream: Readable, name: string, index: number, format: LogFormat): void {
  const color = process.stdout.isTTY === true;
  const prefix = color ? `${COLORS[index % COLORS.length] ?? ''}[${name}]${RESET} ` : `[${name}] `;
  createInterface({ input: stream }).on('line', (line) => {
    const text = format === 'pretty' ? formatLogLine(line, { color }) : line;
    process.stdout.write(`${prefix}${text}\n`);
  });
}

export function say(name: string, message: string): void {
  process.stdout.write(`[${name}] ${message}\n`);
}
