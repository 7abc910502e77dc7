// Fastify compiles every route's validators (ajv) and response serializers (fast-json-stringify) while
// the server starts: about a fifth of a fresh server's start on this machine, paid before it listens
// and before the desktop window's first rows. Here they are compiled on a route's first use instead,
// by Fastify's own compilers with the same options; the warm-up (http/warm-up.ts) then compiles the rest
// in small batches once the server has had no request for a second (after the first screen's requests),
// so a schema that cannot compile still shows soon after a start, and a rarely used route does not pay
// for it on its first request.
import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** The routes' validators and serializers, compiled lazily (see above). */
    lazySchemas: LazySchemas;
  }
}

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
/** Fastify's compiler factories, as far as this file uses them. */
type Build<F> = (externalSchemas: unknown, options: unknown) => (route: unknown) => F;

interface ValidateFunction {
  (data: unknown): unknown;
  errors?: unknown;
}

/** How long the server must have had no request before the warm-up compiles the remaining schemas. */
export const SCHEMAS_IDLE_MS = 1000;

export class LazySchemas {
  private readonly pending = new Set<() => void>();
  private compiled = 0;

  readonly compilersFactory: CompilersFactory;

  constructor() {
    const buildValidator = AjvCompiler() as unknown as Build<ValidateFunction>;
    const buildSerializer = SerializerSelector() as unknown as Build<(data: unknown) => string>;
    const lazyValidator: Build<ValidateFunction> = (externalSchemas, options) => {
      const compile = buildValidator(externalSchemas, options);
      return (route) => {
        const get = this.deferred(() => compile(route));
        // Fastify reads a failed validation's errors from the function it called.
        const validate: ValidateFunction = (data) => {
          const fn = get();
          const result = fn(data);
          validate.errors = fn.errors;
          return result;
        };
        return validate;
      };
    };
    const lazySerializer: Build<(data: unknown) => string> = (externalSchemas, options) => {
      const compile = buildSerializer(externalSchemas, options);
      return (route) => {
        const get = this.deferred(() => compile(route));
        return (data: unknown) => get()(data);
      };
    };
    this.compilersFactory = { buildValidator: lazyValidator, buildSerializer: lazySerializer } as unknown as CompilersFactory;
  }

  /** Compiled at most once: on first use, or by compileAll, whichever comes first. */
  private deferred<F>(compile: () => F): () => F {
    let fn: F | undefined;
    const force = () => {
      if (fn !== undefined) return;
      this.pending.delete(force);
      fn = compile();
      this.compiled++;
    };
    this.pending.add(force);
    return () => {
      force();
      return fn!;
    };
  }

  /** Schemas not compiled yet. */
  get pendingCount(): number {
    return this.pending.size;
  }

  get compiledCount(): number {
    return this.compiled;
  }

  /**
   * Compiles every pending schema, `batch` at a time with a turn of the event loop between batches,
   * only while `idle()` says no request came lately (a page opening on a fresh server must not share
   * the cores with compiling routes it does not use), until done or `signal` aborts.
   */
  async compileAll(options: { batch?: number; idle?: () => boolean; signal?: AbortSignal } = {}): Promise<void> {
    const { batch = 8, idle = () => true, signal } = options;
    while (this.pending.size > 0 && !signal?.aborted) {
      if (!idle()) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      let n = 0;
      for (const force of this.pending) {
        force();
        if (++n >= batch) break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
