import { startFakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { runRelaySecuritySuite } from './relay-security-suite.js';
import { startSecurityGateway } from './start-security-gateway.js';

const withOpenaiUpstream = () => startSecurityGateway({ upstream: () => startFakeOpenaiUpstream() });

runRelaySecuritySuite(
  { name: 'chat completions', method: 'POST', path: '/v1/chat/completions', style: 'openai', reachesUpstream: true, body: (model) => ({ model, messages: [{ role: 'user', content: 'Hello' }] }) },
  withOpenaiUpstream,
);
runRelaySecuritySuite(
  { name: 'chat completions, streamed', method: 'POST', path: '/v1/chat/completions', style: 'openai', reachesUpstream: true, body: (model) => ({ model, stream: true, messages: [{ role: 'user', content: 'Hello' }] }) },
  withOpenaiUpstream,
);
runRelaySecuritySuite({ name: 'embeddings', method: 'POST', path: '/v1/embeddings', style: 'openai', reachesUpstream: true, body: (model) => ({ model, input: 'Hello' }) }, withOpenaiUpstream);
runRelaySecuritySuite({ name: 'legacy embeddings', method: 'POST', path: '/v1/engines/{model}/embeddings', style: 'openai', reachesUpstream: true, body: () => ({ input: 'Hello' }) }, withOpenaiUpstream);
