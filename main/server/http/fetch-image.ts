// upload_by_url's outgoing side: the image is fetched through the guarded client (outgoing.ts) with
// the upload size cap, then stored like any upload (domain/uploads.ts).
import type { Response } from 'undici';
import { ValidationError } from '../domain/errors.js';
import { MAX_UPLOAD_BYTES } from '../domain/uploads.js';
import { guardedFetch, type Reach } from './outgoing.js';

function invalid(field: string, text: string): ValidationError {
  return new ValidationError({ [field]: [text] });
}

export const BY_URL_TIMEOUT_MS = 15_000;

/**
 * Downloads an image for upload_by_url through the guarded client (http/outgoing.ts): public
 * addresses only unless allowed, redirects checked, a timeout and the upload size cap. Every failure
 * of the fetch itself answers the same text, so the answer tells nothing about the network behind.
 */
export async function fetchImage(url: string, options: { reach: Reach; timeoutMs?: number }): Promise<Buffer> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid('url', 'Enter a valid URL.');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalid('url', 'Only http and https URLs are accepted.');
  const failed = () => invalid('url', 'The image could not be fetched.');
  let response: Response;
  try {
    response = await guardedFetch(parsed, { reach: options.reach, timeoutMs: options.timeoutMs ?? BY_URL_TIMEOUT_MS, maxRedirects: 5 });
  } catch {
    throw failed();
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw failed();
  }
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_UPLOAD_BYTES) {
    await response.body.cancel();
    throw invalid('url', `The file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB.`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > MAX_UPLOAD_BYTES) {
        await reader.cancel();
        throw invalid('url', `The file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB.`);
      }
      chunks.push(Buffer.from(value));
    }
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    throw failed();
  }
  return Buffer.concat(chunks);
}
