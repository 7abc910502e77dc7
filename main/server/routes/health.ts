// GET /health: liveness for scripts and the desktop host; no token, answers once the database is open.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';

const health: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    config: { auth: false },
    schema: { tags: ['app'], summary: 'Liveness check (no token)', response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
  }, async () => ({ status: 'ok' as const }));
};
export default health;
