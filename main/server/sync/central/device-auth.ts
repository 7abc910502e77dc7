// Device authentication for the sync endpoints: `Authorization: Token <device key>` (a device key,
// not an API key), the sync protocol version, and the device's clock. Each refusal says what is wrong
// in words the laptop shows as they are.
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { verifyDeviceKey, type DeviceRole } from '../../domain/devices.js';
import { HttpError, detail } from '../../http/errors.js';
import { PROTOCOL_HEADER, SYNC_PROTOCOL_VERSION } from '../../schemas/sync.js';
import type { Database } from '../../storage/schema.js';

export interface AuthenticatedDevice {
  deviceId: string;
  role: DeviceRole;
}

/** How far a device's clock may be from the central's before it is told to fix it. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

export function deviceAuthenticator(db: Kysely<Database>) {
  return async (request: FastifyRequest): Promise<AuthenticatedDevice> => {
    const [scheme, key, extra] = (request.headers.authorization ?? '').split(' ').filter((p) => p.length > 0);
    if (scheme?.toLowerCase() !== 'token' || !key || extra !== undefined) {
      throw new HttpError(401, detail('Device key not provided: send "Authorization: Token <device key>".'), { 'WWW-Authenticate': 'Token' });
    }
    const check = await verifyDeviceKey(db, key);
    if (!check.ok) {
      const text = check.reason === 'revoked' ? 'This device has been revoked at the central.' : 'Invalid device key.';
      throw new HttpError(401, { ...detail(text), code: check.reason === 'revoked' ? 'device_revoked' : 'invalid_device_key' }, { 'WWW-Authenticate': 'Token' });
    }
    return { deviceId: check.device.id, role: check.device.role };
  };
}

/** 426 for a client older than the central's protocol (or one that does not say). */
export function checkProtocol(request: FastifyRequest): void {
  const raw = request.headers[PROTOCOL_HEADER];
  const version = Number(Array.isArray(raw) ? raw[0] : raw);
  if (!Number.isInteger(version) || version < SYNC_PROTOCOL_VERSION) {
    throw new HttpError(426, {
      ...detail(`The app's sync protocol (${Number.isInteger(version) ? `v${version}` : 'unknown'}) is older than the central's (v${SYNC_PROTOCOL_VERSION}): update the app. Its changes stay queued.`),
      code: 'protocol_outdated',
      protocol: SYNC_PROTOCOL_VERSION,
    });
  }
}

/** 409 when the device's clock is far from the central's: its timestamps would be wrong. */
export function checkClock(clientTime: string, at = Date.now()): void {
  const skew = Date.parse(clientTime) - at;
  if (Math.abs(skew) > MAX_CLOCK_SKEW_MS) {
    const minutes = Math.round(Math.abs(skew) / 60_000);
    throw new HttpError(409, {
      ...detail(`This device's clock is ${minutes} minutes ${skew > 0 ? 'ahead of' : 'behind'} the central's: correct its date and time. Its changes stay queued.`),
      code: 'clock_skew',
    });
  }
}

/** The onRequest hook of every device endpoint: the device key, then the protocol version. */
export function deviceOnRequest(db: Kysely<Database>) {
  const authenticate = deviceAuthenticator(db);
  return async (request: FastifyRequest): Promise<void> => {
    request.device = await authenticate(request);
    checkProtocol(request);
  };
}
