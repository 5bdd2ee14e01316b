import type { Catalog } from '../catalog/catalog.js';
import type { Environment } from '../config/read-environment.js';
import type { RelayServices } from '../relay/relay-services.js';
import type { SecretBox } from '../security/secret-box.js';
import type { DatabaseHandle } from '../storage/create-database.js';
import type { ChannelsRepository } from '../storage/channels-repository.js';
import type { LogsRepository } from '../storage/logs-repository.js';
import type { OptionsRepository } from '../storage/options-repository.js';
import type { PricingRepository } from '../storage/pricing-repository.js';
import type { TasksRepository } from '../storage/tasks-repository.js';
import type { AssetOwnersRepository } from '../storage/asset-owners-repository.js';
import type { ConversationOwnersRepository } from '../storage/conversation-owners-repository.js';
import type { TaskEngine } from '../tasks/task-engine.js';
import type { TokensRepository } from '../storage/tokens-repository.js';
import type { UsersRepository } from '../storage/users-repository.js';

/** What the HTTP layer may use; built once in main.ts (the composition root). */
export interface AppServices {
  environment: Environment;
  /** Signs console session cookies: SESSION_SECRET, else the one generated at the first start. */
  sessionSecret: string;
  database: DatabaseHandle;
  catalog: Catalog;
  secrets: SecretBox;
  relay: RelayServices;
  repositories: {
    users: UsersRepository;
    tokens: TokensRepository;
    channels: ChannelsRepository;
    pricing: PricingRepository;
    options: OptionsRepository;
    logs: LogsRepository;
    tasks: TasksRepository;
    assetOwners: AssetOwnersRepository;
    /** Read and written through relay.conversations (conversation-owners.ts). */
    conversationOwners: ConversationOwnersRepository;
  };
  /** The poll loop of asynchronous tasks (started unless TASK_POLL_INTERVAL is 0). */
  taskEngine: TaskEngine;
  /** Unix milliseconds; injected so tests can move time. */
  now(): number;
}
