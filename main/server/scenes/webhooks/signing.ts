// Webhook signatures: HMAC-SHA256 over the exact raw body, sent as
// `X-Shelf-Audit-Signature: sha256=<hex>`. The key is the instance's webhook secret, generated on
// first use, stored in the database and shown to API clients at GET /api/app/v1/webhook_deliveries/secret/.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import { recognitionSetting } from '../queries.js';

export const SIGNATURE_HEADER = 'X-Shelf-Audit-Signature';
const SECRET_SETTING = 'webhook_secret';

export function sign(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** For receivers (and tests): constant-time check of a signature header against the body. */
export function verifySignature(secret: string, body: string, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(sign(secret, body));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export async function webhookSecret(db: Kysely<Database>): Promise<string> {
  return recognitionSetting(db, SECRET_SETTING, () => randomBytes(32).toString('hex'));
}
