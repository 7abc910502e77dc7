// /api/app/v1/agents/: the agents POST /recognize created from its metadata, read-only (list, detail).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getAgent, listAgents } from '../../domain/agents.js';
import { envelope, pageOf, readFormPaging } from '../../http/pagination.js';
import { AgentItem } from '../../schemas/app.js';
import { Envelope, IdParams, PageQuery, errorResponses } from '../../schemas/common.js';

const agents: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['app: agents'];
  app.get('/agents/', {
    schema: { tags, summary: 'List agents (created by /recognize metadata.agent_id), oldest first', querystring: PageQuery, response: { 200: Envelope(AgentItem), ...errorResponses } },
    preValidation: readFormPaging,
  }, async (request) => {
    const page = pageOf(request.query);
    const { count, results } = await listAgents(app.db, page);
    return envelope(request, page, count, results);
  });
  app.get('/agents/:id/', {
    schema: { tags, summary: 'Read an agent', params: IdParams, response: { 200: AgentItem, ...errorResponses } },
  }, async (request) => getAgent(app.db, request.params.id));
};
export default agents;
