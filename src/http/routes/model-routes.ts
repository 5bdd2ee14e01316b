import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ErrorStyle } from '../../errors/render-error.js';
import {
  formatAnthropicModel,
  formatAnthropicModelList,
  formatGeminiModel,
  formatGeminiModelList,
  formatOpenaiModel,
  formatOpenaiModelList,
} from '../../models/format-model-list.js';
import { listUsableModels, type UsableModel } from '../../models/list-usable-models.js';
import type { AppServices } from '../app-services.js';
import { authenticateCaller } from '../middleware/authenticate-caller.js';

/** Spec §5.3: GET /v1/models answers in the style its headers announce. */
function listStyleOf(request: FastifyRequest): ErrorStyle {
  const query = request.query as Record<string, unknown>;
  // `key` given twice is an array: still a Gemini client, told so in its own envelope.
  if (request.headers['x-goog-api-key'] !== undefined || query.key !== undefined) return 'gemini';
  if (request.headers['x-api-key'] !== undefined || request.headers['anthropic-version'] !== undefined) return 'anthropic';
  return 'openai';
}

function optionalInteger(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export async function modelRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const usableModels = (request: FastifyRequest): UsableModel[] => {
    if (request.caller === undefined) throw new Error('model routes run after authentication');
    const snapshot = services.catalog.snapshot;
    return listUsableModels(snapshot.channels, request.caller, { prices: snapshot.prices, allowUnpricedModels: snapshot.settings.allowUnpricedModels });
  };
  const pickStyle: onRequestHookHandler = function pickStyle(request, _reply, done) {
    request.errorStyle = listStyleOf(request);
    done();
  };
  const authenticate = authenticateCaller(services, 'any');

  app.get('/v1/models', { onRequest: [pickStyle, authenticate] }, async (request) => {
    const models = usableModels(request);
    const query = request.query as Record<string, unknown>;
    switch (request.errorStyle) {
      case 'anthropic':
        return formatAnthropicModelList(models, { limit: optionalInteger(query.limit), afterId: optionalString(query.after_id), beforeId: optionalString(query.before_id) });
      case 'gemini':
        return formatGeminiModelList(models, optionalInteger(query.pageSize), optionalString(query.pageToken));
      default:
        return formatOpenaiModelList(models);
    }
  });

  // Wildcards, not `:model`: a model id may hold a slash (`openai/gpt-4o`, `vendor/model`), as the lists show it.
  app.get<{ Params: { '*': string } }>('/v1/models/*', { onRequest: [pickStyle, authenticate] }, async (request) => {
    const id = request.params['*'];
    const model = usableModels(request).find((candidate) => candidate.id === id);
    if (model === undefined) throw new GatewayError('model_not_found', `The model '${id}' does not exist`, { status: 404, param: 'model' });
    switch (request.errorStyle) {
      case 'anthropic':
        return formatAnthropicModel(model);
      case 'gemini':
        return formatGeminiModel(model);
      default:
        return formatOpenaiModel(model);
    }
  });

  app.get('/v1beta/models', { config: { errorStyle: 'gemini' }, onRequest: authenticate }, async (request) => {
    const query = request.query as Record<string, unknown>;
    return formatGeminiModelList(usableModels(request), optionalInteger(query.pageSize), optionalString(query.pageToken));
  });

  app.get<{ Params: { '*': string } }>('/v1beta/models/*', { config: { errorStyle: 'gemini' }, onRequest: authenticate }, async (request) => {
    const id = request.params['*'].replace(/^models\//, '');
    const model = usableModels(request).find((candidate) => candidate.id === id);
    if (model === undefined) throw new GatewayError('model_not_found', `models/${id} is not found`, { status: 404 });
    return formatGeminiModel(model);
  });

  app.get('/v1beta/openai/models', { config: { errorStyle: 'openai' }, onRequest: authenticate }, async (request) => formatOpenaiModelList(usableModels(request)));
}
