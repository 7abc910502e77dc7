// A write refused because the disk (or the user's quota) is full: a laptop that has taken a day of
// photos offline. SQLite rolls the transaction back and a file being written is removed, so nothing of
// the request is kept; the answer says so in words (http/errors.ts: 507), not "A server error occurred."
// or, for a photo upload whose temporary file could not be written, "Malformed request.".

const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);

export function isDiskFull(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = (e as Error).cause, depth++) {
    const code = (e as Error & { code?: unknown }).code;
    if (typeof code === 'string' && FULL_CODES.has(code)) return true;
  }
  return false;
}
