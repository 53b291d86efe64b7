// The one error type of both services: a code from a small set, mapped to an HTTP status in one place.
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  too_many_requests: 429,
  internal: 500,
  not_implemented: 501,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

const TITLES: Record<ErrorCode, string> = {
  bad_request: 'Bad Request',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  not_found: 'Not Found',
  method_not_allowed: 'Method Not Allowed',
  not_acceptable: 'Not Acceptable',
  conflict: 'Conflict',
  payload_too_large: 'Payload Too Large',
  unsupported_media_type: 'Unsupported Media Type',
  validation_failed: 'Validation Failed',
  too_many_requests: 'Too Many Requests',
  internal: 'Internal Server Error',
  not_implemented: 'Not Implemented',
  service_unavailable: 'Service Unavailable',
};

export type FieldError = { path: string; message: string };

export type AppErrorOptions = {
  errors?: FieldError[];
  /** Response headers the error implies, such as `WWW-Authenticate` or `Retry-After`. */
  headers?: Record<string, string>;
  cause?: unknown;
  /**
   * A problem type more specific than the code's, as its last segment (`token-expired`), where a client
   * must tell two failures of one status apart.
   */
  type?: string;
};

export class AppError extends Error {
  readonly status: number;
  readonly title: string;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;
  readonly typeUri: string;

  constructor(
    readonly code: ErrorCode,
    detail: string,
    options: AppErrorOptions = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
    this.title = TITLES[code];
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.typeUri = `urn:agentplane:problem:${options.type ?? code.replaceAll('_', '-')}`;
  }
}
