// /api/app/v1/webhook_deliveries/: the webhook delivery log (filters: status, scene, report), and
// the secret that signs deliveries.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { envelope, pageOf, readFormPaging } from '../../http/pagination.js';
import { listDeliveries } from '../../scenes/webhooks/deliveries.js';
import { SIGNATURE_HEADER, webhookSecret } from '../../scenes/webhooks/signing.js';
import { Envelope, PageQueryProperties, errorResponses } from '../../schemas/common.js';
import { WebhookDeliveryItem, WebhookDeliveryQuery, WebhookSecret } from '../../schemas/recognition.js';

const webhookDeliveries: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['app: webhooks'];
  app.get('/webhook_deliveries/', {
    schema: {
      tags,
      summary: 'Webhook delivery log',
      querystring: Type.Object({ ...PageQueryProperties, ...WebhookDeliveryQuery.properties }),
      response: { 200: Envelope(WebhookDeliveryItem), ...errorResponses },
    },
    preValidation: readFormPaging,
  }, async (request) => {
    const query = request.query;
    const page = pageOf(query);
    const { count, results } = await listDeliveries(app.db, page, query);
    return envelope(request, page, count, results);
  });
  app.get('/webhook_deliveries/secret/', {
    schema: { tags, summary: 'The key of the HMAC-SHA256 signature on every webhook delivery', response: { 200: WebhookSecret, ...errorResponses } },
  }, async () => ({ secret: await webhookSecret(app.db), header: SIGNATURE_HEADER, algorithm: 'HMAC-SHA256 over the raw body, hex, prefixed "sha256="' }));
};
export default webhookDeliveries;
