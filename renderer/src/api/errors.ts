// DRF error bodies turned into something a form can show: a message for the whole request and
// messages per field, keyed by the field name the API used.

export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fieldErrors: FieldErrors = {},
    /** The error body as the server sent it (the import's `failures`). */
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** True when the request never reached the server (offline, server down). */
  get isNetwork(): boolean {
    return this.status === 0;
  }
}

function messagesOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(messagesOf);
  // Nested serializers report {"field": {"sub": ["..."]}}; show the sub-field with its messages.
  if (value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
      messagesOf(v).map((m) => `${k}: ${m}`),
    );
  }
  return [];
}

/** Reads a DRF error body: `{"detail": "..."}` or `{"field": ["..."], "non_field_errors": [...]}`. */
export function parseErrorBody(status: number, body: unknown, fallback: string): ApiError {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const record = body as Record<string, unknown>;
    if (typeof record.detail === 'string') return new ApiError(status, record.detail, {}, body);
    const fields: FieldErrors = {};
    const general: string[] = [];
    for (const [key, value] of Object.entries(record)) {
      const messages = messagesOf(value);
      if (messages.length === 0) continue;
      if (key === 'non_field_errors' || key === 'detail') general.push(...messages);
      else fields[key] = messages;
    }
    const summary =
      general.length > 0
        ? general.join(' ')
        : Object.entries(fields)
            .map(([k, m]) => `${k}: ${m.join(' ')}`)
            .join('; ');
    return new ApiError(status, summary || fallback, fields, body);
  }
  if (Array.isArray(body)) {
    const messages = messagesOf(body);
    if (messages.length) return new ApiError(status, messages.join(' '));
  }
  return new ApiError(status, fallback);
}

/** The text a screen shows for any failure. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.isNetwork) return `The local server cannot be reached (${error.message}).`;
    return error.message;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}
