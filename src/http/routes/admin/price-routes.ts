import type { FastifyInstance } from 'fastify';
import type { PriceRecord } from '../../../catalog/catalog-records.js';
import { GatewayError } from '../../../errors/gateway-error.js';
import type { AppServices } from '../../app-services.js';
import { describeAdminRoute, pageQuerystring } from './describe-admin-route.js';
import { entityNotFound } from './entity-not-found.js';
import { formatPrice } from './format-price.js';
import { pageOfItems } from './page-of-items.js';
import { parsePageRequest } from './parse-page-request.js';
import { parseRequestBody } from './parse-request-body.js';
import { createPriceBodySchema, mergePrice, updatePriceBodySchema } from './price-body-schemas.js';
import { refuseUnlessRoot } from './refuse-unless-root.js';
import { successEnvelope } from './success-envelope.js';

const tag = 'prices';
const modelParameter = { model: { type: 'string' as const, description: 'The model name (URL-encode a `/` as %2F).' } };

function hasAnyPrice(price: PriceRecord): boolean {
  return [price.input, price.output, price.cacheRead, price.cacheWrite, price.cacheWrite1h, price.audioInput, price.audioOutput, price.imageInput, price.imageOutput, price.webSearch, price.perCall, price.perSecond].some((value) => value !== undefined);
}

/** /api/admin/prices: model prices, keyed by model name. */
export async function priceRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const pricing = services.repositories.pricing;

  // The price table is small (one row per model), so it is read whole and paged here.
  const findPrice = async (model: string) => (await pricing.listPrices()).find((price) => price.model === model);
  const requirePrice = async (model: string) => {
    const price = await findPrice(model);
    if (price === undefined) throw entityNotFound('Price of model', model);
    return price;
  };
  const modelOf = (params: unknown) => (params as { model: string }).model;

  app.get('/prices', { schema: describeAdminRoute({ tag, summary: 'List model prices', querystring: pageQuerystring }) }, async (request) => {
    const page = pageOfItems(await pricing.listPrices(), parsePageRequest(request.query));
    return successEnvelope({ ...page, items: page.items.map(formatPrice) });
  });

  app.get('/prices/:model', { schema: describeAdminRoute({ tag, summary: 'Get the price of a model', params: modelParameter }) }, async (request) => {
    return successEnvelope(formatPrice(await requirePrice(modelOf(request.params))));
  });

  app.post('/prices', { schema: describeAdminRoute({ tag, summary: 'Price a model', body: createPriceBodySchema }) }, async (request) => {
    refuseUnlessRoot(request, 'prices');
    const body = parseRequestBody(createPriceBodySchema, request.body);
    if ((await findPrice(body.model)) !== undefined) {
      throw new GatewayError('already_exists', `model: "${body.model}" already has a price; change it with PUT /api/admin/prices/:model.`, { param: 'model' });
    }
    const price = mergePrice({ model: body.model }, body);
    await pricing.upsertPrice(price, services.now());
    await services.catalog.changed();
    return successEnvelope(formatPrice(await requirePrice(body.model)));
  });

  app.put(
    '/prices/:model',
    { schema: describeAdminRoute({ tag, summary: 'Change the price of a model (partial; null clears a field)', params: modelParameter, body: updatePriceBodySchema }) },
    async (request) => {
      refuseUnlessRoot(request, 'prices');
      const model = modelOf(request.params);
      const body = parseRequestBody(updatePriceBodySchema, request.body);
      const price = mergePrice(await requirePrice(model), body);
      if (!hasAnyPrice(price)) throw new GatewayError('invalid_request', 'A price needs at least one field; delete it to stop pricing the model.');
      await pricing.upsertPrice(price, services.now());
      await services.catalog.changed();
      return successEnvelope(formatPrice(await requirePrice(model)));
    },
  );

  app.delete('/prices/:model', { schema: describeAdminRoute({ tag, summary: 'Delete the price of a model', params: modelParameter }) }, async (request) => {
    refuseUnlessRoot(request, 'prices');
    const model = modelOf(request.params);
    if (!(await pricing.deletePrice(model))) throw entityNotFound('Price of model', model);
    await services.catalog.changed();
    return successEnvelope({ model });
  });
}
