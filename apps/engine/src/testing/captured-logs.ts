// Keeps every line a test's engine logs, parsed, so a test can find the line an error id in a
// response points to, and prove what reached the log and what did not.
import type { DestinationStream } from 'pino';

export type LogLine = { level: number; msg: string; error_id?: string } & Record<string, unknown>;

export type CapturedLogs = {
  /** Give this to the engine's logger (pino writes one line per call). */
  destination: DestinationStream;
  lines: () => LogLine[];
  /** The lines logged under this error id. */
  withErrorId: (errorId: string) => LogLine[];
};

export function captureLogs(): CapturedLogs {
  const lines: LogLine[] = [];
  return {
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
    lines: () => [...lines],
    withErrorId: (errorId) => lines.filter((line) => line.error_id === errorId),
  };
}
