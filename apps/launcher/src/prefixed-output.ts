import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

const COLORS = ['\x1b[36m', '\x1b[35m', '\x1b[33m', '\x1b[32m'];
const RESET = '\x1b[0m';

/** Writes each line of a child's output to ours behind `[name]`, coloured on a terminal. */
export function pipeWithPrefix(stream: Readable, name: string, index: number): void {
  const color = process.stdout.isTTY ? (COLORS[index % COLORS.length] ?? '') : '';
  const prefix = `${color}[${name}]${color ? RESET : ''} `;
  createInterface({ input: stream }).on('line', (line) => {
    process.stdout.write(`${prefix}${line}\n`);
  });
}

export function say(name: string, message: string): void {
  process.stdout.write(`[${name}] ${message}\n`);
}
