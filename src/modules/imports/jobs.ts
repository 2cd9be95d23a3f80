import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { JobDefinition } from '../../jobs/queue.ts';
import { runImport } from './processing.ts';
import { IMPORT_JOB } from './service.ts';

const importJobData = z.object({ jobId: z.uuid() });

/** The import's one job: the files of an accepted import become videos. */
export const importJobDefinitions = (context: Pick<AppContext, 'config' | 'clock'>): JobDefinition[] => [
  {
    name: IMPORT_JOB,
    // A retried run resumes where the last stopped; a long import (200 files) is not a dead one.
    queue: { retryLimit: 5, retryDelay: 30, retryBackoff: true, expireInSeconds: 60 * 60 },
    handler: (data, { db, jobs, logger }) =>
      runImport({ ...context, db, jobs, logger }, importJobData.parse(data).jobId),
  },
];
