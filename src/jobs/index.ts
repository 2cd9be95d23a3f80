import type { Config } from '../config.ts';
import { idempotencyCleanupJob } from '../http/idempotency.ts';
import type { Clock } from '../lib/clock.ts';
import { sessionCleanupJob } from '../modules/auth/sessions.ts';
import { billingRenewalJob } from '../modules/billing/renewals.ts';
import { importJobDefinitions } from '../modules/imports/jobs.ts';
import { integrationJobs } from '../modules/integrations/jobs.ts';
import { extractorFor } from '../modules/knowledge/extractors.ts';
import { knowledgeJobs } from '../modules/knowledge/service.ts';
import { mailDeliveryJob } from '../modules/mail/service.ts';
import { mediaStoreFor } from '../modules/media/stores.ts';
import { mediaSweepJob } from '../modules/media/sweep.ts';
import { transcriptionJobs } from '../modules/media/transcription.ts';
import { embeddingJobs } from '../modules/search/embeddings.ts';
import { videoPurgeJob } from '../modules/videos/purge.ts';
import type { JobDefinition } from './queue.ts';
import { rateLimitCleanupJob } from './rate-limit-cleanup.ts';

/** Every background job of the service; modules add theirs here. */
export const jobDefinitions = (config: Config, clock: Clock): JobDefinition[] => {
  const store = mediaStoreFor(config);
  return [
    rateLimitCleanupJob,
    sessionCleanupJob,
    mailDeliveryJob(config),
    videoPurgeJob,
    idempotencyCleanupJob,
    billingRenewalJob({ config, clock }),
    ...knowledgeJobs({ config, clock, extractor: extractorFor(config) }),
    ...embeddingJobs(config),
    ...integrationJobs({ config, clock }),
    ...importJobDefinitions({ config, clock }),
    ...transcriptionJobs({ config, clock, store }),
    mediaSweepJob({ clock, store }),
  ];
};
