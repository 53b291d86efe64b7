// A service's pino line as a person reads it: time, level, message and the fields that matter on one
// line; a request as `GET /path 200 12ms`. A line that is no pino JSON (a crash, a child's own output)
// is printed as it came.

const LEVELS: Record<number, { name: string; color: string }> = {
  10: { name: 'TRACE', color: '\x1b[90m' },
  20: { name: 'DEBUG', color: '\x1b[90m' },
  30: { name: 'INFO', color: '\x1b[32m' },
  40: { name: 'WARN', color: '\x1b[33m' },
  50: { name: 'ERROR', color: '\x1b[31m' },
  60: { name: 'FATAL', color: '\x1b[31m' },
};
const RESET = '\x1b[0m';
const DIM = '\x1b[2m';
const ERROR_LEVEL = 50;

// Said by every line, or by the request already: left out.
const PINO_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'v']);
const REQUEST_FIELDS = new Set(['req', 'res', 'responseTime']);
// pino-http's own messages, which the request line says better.
const REQUEST_MESSAGES = new Set(['request completed']);

type PinoLine = { level: number; time: number; msg?: unknown; [field: string]: unknown };
type Request = { req: { method?: unknown; url?: unknown }; res: { statusCode?: unknown }; responseTime?: unknown };
type SerializedError = { type?: unknown; message?: unknown; stack?: unknown };

function parsePinoLine(line: string): PinoLine | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(line);
    const candidate = parsed as Partial<PinoLine> | null;
    return typeof candidate?.level === 'number' && typeof candidate.time === 'number'
      ? (candidate as PinoLine)
      : undefined;
  } catch {
    return undefined;
  }
}

function isRequest(entry: PinoLine): entry is PinoLine & Request {
  return typeof entry.req === 'object' && entry.req !== null && typeof entry.res === 'object' && entry.res !== null;
}

function clock(time: number): string {
  const at = new Date(time);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}.${pad(at.getMilliseconds(), 3)}`;
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

function describeError(error: SerializedError): string {
  return `${typeof error.type === 'string' ? `${error.type}: ` : ''}${String(error.message ?? '')}`;
}

export function formatLogLine(line: string, options: { color: boolean }): string {
  const entry = parsePinoLine(line);
  if (entry === undefined) return line;
  const paint = (color: string, text: string) => (options.color ? `${color}${text}${RESET}` : text);
  const level = LEVELS[entry.level] ?? { name: String(entry.level), color: '' };
  const parts = [paint(DIM, clock(entry.time)), paint(level.color, level.name.padEnd(5))];
  const request = isRequest(entry);
  if (request) {
    const { method, url } = entry.req;
    const time = typeof entry.responseTime === 'number' ? ` ${entry.responseTime}ms` : '';
    parts.push(`${String(method)} ${String(url)} ${String(entry.res.statusCode)}${time}`);
  }
  const msg = typeof entry.msg === 'string' ? entry.msg : undefined;
  if (msg !== undefined && !(request && REQUEST_MESSAGES.has(msg))) parts.push(msg);
  let stack: string | undefined;
  for (const [field, value] of Object.entries(entry)) {
    if (PINO_FIELDS.has(field) || (request && REQUEST_FIELDS.has(field))) continue;
    if (field === 'err' && typeof value === 'object' && value !== null) {
      const error = value as SerializedError;
      parts.push(`err=${JSON.stringify(describeError(error))}`);
      if (entry.level >= ERROR_LEVEL && typeof error.stack === 'string') stack = error.stack;
      continue;
    }
    parts.push(paint(DIM, `${field}=`) + formatValue(value));
  }
  const text = parts.join(' ');
  // Where an error came from is worth the extra lines; everything else stays on one.
  return stack === undefined ? text : `${text}\n${stack.replace(/^/gm, '    ')}`;
}
