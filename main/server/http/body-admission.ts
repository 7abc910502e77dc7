// How many large request bodies are read at once: a multipart upload of 20
// files, a 64 MiB import. Each takes one of a few slots before its body is read and keeps it until its
// response ends; others wait for a slot (their bytes stay in the socket, unread) and, after a while,
// get DRF's 503 with Retry-After. Small bodies (1 MiB at most, declared) never wait.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError, detail } from './errors.js';

/** Bodies over this many bytes, or of undeclared length (chunked), need a slot. */
export const LARGE_BODY_BYTES = 1024 * 1024;
export const LARGE_BODIES_IN_FLIGHT = 2;
export const ADMISSION_WAIT_MS = 60_000;
export const RETRY_AFTER_SECONDS = 10;

/** A counting semaphore whose waiters give up after a time (first come, first served). */
export class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    this.free = size;
  }

  /** A release function, or null when no slot came free within `waitMs`. */
  acquire(waitMs: number): Promise<(() => void) | null> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => {
      const grant = () => {
        clearTimeout(timer);
        resolve(this.releaser());
      };
      const timer = setTimeout(() => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        resolve(null);
      }, waitMs);
      this.waiting.push(grant);
    });
  }

  get inUse(): number {
    return this.size - this.free;
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter; otherwise it is free again.
      if (next) next();
      else this.free++;
    };
  }
}

function isLarge(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  if (length !== undefined) return Number(length) > LARGE_BODY_BYTES;
  return request.headers['transfer-encoding'] !== undefined;
}

export interface AdmissionOptions {
  slots?: number;
  waitMs?: number;
}

/**
 * A preParsing hook: it runs after every onRequest hook (authentication, roles, rate limit), so only
 * requests allowed in wait for a slot, and before any byte of the body is read.
 */
export const bodyAdmissionPlugin = fp(
  async (app: FastifyInstance, options: AdmissionOptions) => {
    const slots = new Slots(options.slots ?? LARGE_BODIES_IN_FLIGHT);
    const waitMs = options.waitMs ?? ADMISSION_WAIT_MS;
    app.addHook('preParsing', async (request: FastifyRequest, reply: FastifyReply) => {
      if (!isLarge(request)) return;
      const release = await slots.acquire(waitMs);
      if (!release) {
        throw new HttpError(503, detail('Service temporarily unavailable, try again later.'), { 'Retry-After': String(RETRY_AFTER_SECONDS) });
      }
      // 'close' comes when the response is done or the connection is gone, whichever happens.
      if (reply.raw.closed) release();
      else reply.raw.once('close', release);
    });
  },
  { name: 'shelf-audit-body-admission' },
);
