import type { Config } from '../config.ts';
import { sessionCleanupJob } from '../modules/auth/sessions.ts';
import { mailDeliveryJob } from '../modules/mail/service.ts';
import { videoPurgeJob } from '../modules/videos/purge.ts';
import type { JobDefinition } from './queue.ts';
import { rateLimitCleanupJob } from './rate-limit-cleanup.ts';

/** Every background job of the service; modules add theirs here. */
export const jobDefinitions = (config: Config): JobDefinition[] => [
  rateLimitCleanupJob,
  sessionCleanupJob,
  mailDeliveryJob(config),
  videoPurgeJob,
];
