import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, callerId, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { byteSize } from '../../lib/bytes.ts';
import { importBody, importJobSchema, importParams } from './schemas.ts';
import { getImport, startImport } from './service.ts';
import { IMPORT_LIMITS, importFromForm, registerImportForms } from './upload.ts';

const tags = ['Integrations'];

/** Bulk import of transcript files: accepted at once, turned into videos by a job whose progress is read back. */
export const importRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  // Only this plugin reads multipart forms of many files (the transcript route reads its own).
  await registerImportForms(app);
  app.addHook('onRequest', authenticated);

  app.post(
    '/integrations/import',
    {
      preValidation: importFromForm(context.db),
      schema: {
        tags,
        summary:
          'Import transcript files as videos, in bulk (member or above); answered at once, run as a job',
        description:
          '`multipart/form-data`: `organizationId`, optional `channelId` and `visibility`, then the files as ' +
          '`files` (or `file`) parts — `organizationId` before the first file (as `curl -F` and FormData send ' +
          `fields in order): at most ${IMPORT_LIMITS.files} files (each entry of a zip counts), ` +
          `${byteSize(IMPORT_LIMITS.fileBytes)} each (a zip part may take the whole request; each of its ` +
          `entries, as declared, ${byteSize(IMPORT_LIMITS.fileBytes)}), ${byteSize(IMPORT_LIMITS.requestBytes)} ` +
          'a request. ' +
          '202 with the job (and `Location`); follow it with GET /integrations/import/{jobId}. A file whose bytes ' +
          'were imported into the organization before is a `duplicate`; one that cannot be read `failed`, with ' +
          'the error and line.',
        security,
        consumes: ['multipart/form-data'],
        body: importBody,
        response: { 202: importJobSchema, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => {
      const job = await startImport(context, callerId(request), request.body);
      return reply.status(202).header('location', `/integrations/import/${job.id}`).send(job);
    },
  );

  app.get(
    '/integrations/import/:jobId',
    {
      schema: {
        tags,
        summary: "An import's progress: its counts and each file's outcome (any member of its organization)",
        security,
        params: importParams,
        response: { 200: importJobSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => getImport(context.db, callerId(request), request.params.jobId),
  );
};
