import type { JobDefinition } from './queue.ts';
import { rateLimitCleanupJob } from './rate-limit-cleanup.ts';

/** Every background job of the service; modules add theirs here. */
export const jobDefinitions: JobDefinition[] = [rateLimitCleanupJob];
