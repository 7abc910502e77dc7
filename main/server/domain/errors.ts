// Domain failures, free of HTTP: the server's error handler turns them into DRF-shaped 4xx bodies,
// the CLI into messages.

/** The record asked for does not exist. */
export class NotFoundError extends Error {
  constructor(what = 'record') {
    super(`${what} not found`);
    this.name = 'NotFoundError';
  }
}

/** Input that breaks a rule: field name -> messages, in DRF's texts ("non_field_errors" for the whole). */
export class ValidationError extends Error {
  constructor(readonly fields: Record<string, string[]>) {
    super(Object.entries(fields).map(([k, v]) => `${k}: ${v.join(' ')}`).join('; '));
    this.name = 'ValidationError';
  }
}

export const messages = {
  required: 'This field is required.',
  notNull: 'This field may not be null.',
  blank: 'This field may not be blank.',
  doesNotExist: (pk: unknown) => `Invalid pk "${String(pk)}" - object does not exist.`,
  unique: (label: string, field = 'id') => `${label} with this ${field} already exists.`,
};

/** Input rejected as a whole with a structured report (the master-data import's failed rows). */
export class RejectedError extends Error {
  constructor(readonly report: { detail: string } & Record<string, unknown>) {
    super(report.detail);
    this.name = 'RejectedError';
  }
}

/** The caller may not do this (an API key's role is too low for what it asks). */
export class ForbiddenError extends Error {
  constructor(message = 'You do not have permission to perform this action.') {
    super(message);
    this.name = 'ForbiddenError';
  }
}

/**
 * The request is valid but the record moved on since the client read it (a stale version): the
 * client must read it again. Answered 409 with the report as the body.
 */
export class ConflictError extends Error {
  constructor(readonly report: { detail: string } & Record<string, unknown>) {
    super(report.detail);
    this.name = 'ConflictError';
  }
}
