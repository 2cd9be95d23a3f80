import { mkdir } from 'node:fs/promises';
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import {
  authenticated,
  callerId,
  optionalCallerId,
  optionalSecurity,
  requireAuth,
  security,
} from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import { shareTokenParams } from '../share-links/schemas.ts';
import { playableSharedVideo } from '../share-links/service.ts';
import { ACCEPTED_FORMATS } from './probe.ts';
import { resumableUploads } from './resumable.ts';
import { mediaSchema, uploadRecordingBody } from './schemas.ts';
import { assertSatisfiable, attachRecording, recordingOf, storedRecording } from './service.ts';
import type { MediaStore, Playback } from './storage.ts';
import { registerRecordingForms } from './upload.ts';

const tags = ['Videos'];
const binary = z.string().meta({ format: 'binary' });
/** How a stored recording is answered: whole, a range of it, or (from a bucket) a redirect to it. */
const recordingResponses = {
  200: { description: 'The recording', content: { 'application/octet-stream': { schema: binary } } },
  206: {
    description: 'The requested range of the recording',
    content: { 'application/octet-stream': { schema: binary } },
  },
  302: z.null().meta({
    description: 'With an object store (S3_BUCKET): to a short-lived presigned address of the recording',
  }),
};

/** Recordings the service stores: uploaded into a video, played back with range requests. */
export const mediaRoutes: FastifyPluginAsyncZod<{ context: AppContext; store: MediaStore }> = async (
  app,
  { context, store },
) => {
  const media = { ...context, store };
  await registerRecordingForms(app, context.config.media.maxBytes);
  // reply.sendFile for this plugin's routes: ranges, ETag and Last-Modified, as for static files.
  // Its root must exist, or it warns at start (on a fresh DATA_DIR, before anything was uploaded).
  await mkdir(store.root, { recursive: true });
  await app.register(fastifyStatic, { root: store.root, serve: false });

  // A resumable upload's PATCH body is read by tus, as it streams.
  app.addContentTypeParser('application/offset+octet-stream', (_request, _payload, done) => done(null));
  const resumable = resumableUploads(media);
  const tusVersion = z.literal('1.0.0', { error: 'must be 1.0.0 (the tus version spoken here)' });
  const byteCount = z.string().regex(/^\d{1,15}$/, 'must be a number of bytes');
  const uploadParams = z.object({ id: z.string().regex(/^[\w-]{1,100}$/, 'is not an upload id') });
  /** An answer with no body: what it says is in its headers (`Location`, `Upload-Offset`). */
  const headersOnly = (description: string) => z.null().meta({ description });

  app.post(
    '/uploads',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: "Start a resumable upload of a video's recording (tus 1.0; its author or an admin)",
        description:
          'The tus protocol (tus.io; clients such as tus-js-client, Uppy, tuspy): `Upload-Length` (bytes, up to ' +
          'MEDIA_MAX_BYTES) and `Upload-Metadata` with `videoId` (base64, as tus encodes it) and optionally ' +
          '`filename`. 201 with `Location: /uploads/{id}`; send the bytes with PATCH, resume from the offset HEAD ' +
          'gives. When the last byte arrives the file is checked as POST /videos/{id}/media checks it and becomes ' +
          'the recording. One instance keeps an upload’s lock: behind several instances, route /uploads ' +
          'stickily. An upload not finished within a day is removed.',
        security,
        headers: z.object({
          'tus-resumable': tusVersion,
          'upload-length': byteCount,
          'upload-metadata': z.string().max(4096),
        }),
        response: {
          201: headersOnly('Created: `Location` is the upload to PATCH, `Upload-Offset` 0'),
          ...errorResponses(400, 401, 403, 404, 413),
        },
      },
    },
    (request, reply) => resumable.create(request, reply),
  );

  app.route({
    method: 'HEAD',
    url: '/uploads/:id',
    // A HEAD route of its own (not a GET's shadow): OpenAPI describes it.
    config: { swagger: { exposeHeadRoute: true } },
    onRequest: authenticated,
    schema: {
      tags,
      summary: 'How much of a resumable upload has arrived (its creator): `Upload-Offset`, to resume from',
      security,
      params: uploadParams,
      headers: z.object({ 'tus-resumable': tusVersion }),
      response: {
        200: headersOnly('`Upload-Offset` (how much arrived) and `Upload-Length`'),
        ...errorResponses(400, 401, 404),
      },
    },
    handler: (request, reply) => resumable.continue(request, reply),
  });

  app.patch(
    '/uploads/:id',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'Send the next bytes of a resumable upload (its creator), from `Upload-Offset`',
        description:
          '`Content-Type: application/offset+octet-stream`. 204 with the new `Upload-Offset`; the last bytes answer ' +
          '200 with the stored recording (as POST /videos/{id}/media), or the error that refused it (the upload is ' +
          'then gone). An offset other than the upload’s: 409.',
        security,
        params: uploadParams,
        headers: z.object({ 'tus-resumable': tusVersion, 'upload-offset': byteCount }),
        consumes: ['application/offset+octet-stream'],
        response: {
          200: mediaSchema,
          204: headersOnly('Received: `Upload-Offset` says how far'),
          ...errorResponses(400, 401, 403, 404, 409, 413, 415),
        },
      },
    },
    (request, reply) => resumable.continue(request, reply),
  );

  app.delete(
    '/uploads/:id',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'Abandon a resumable upload (its creator): what arrived is removed',
        security,
        params: uploadParams,
        headers: z.object({ 'tus-resumable': tusVersion }),
        response: { 204: headersOnly('Removed'), ...errorResponses(400, 401, 404) },
      },
    },
    (request, reply) => resumable.continue(request, reply),
  );

  app.post(
    '/videos/:id/media',
    {
      onRequest: authenticated,
      // The file is read by the handler as it streams; the form has nothing else to validate.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags,
        summary:
          "Upload a video's recording (its author or an admin): stored, measured, and transcribed when a provider is set",
        description:
          `\`multipart/form-data\` with the recording in a part named \`file\` (\`curl -F file=@meeting.mp4\`): ` +
          `${ACCEPTED_FORMATS}, recognised by its content (a renamed file is a 415), up to MEDIA_MAX_BYTES ` +
          '(413 past it). Its length and codec are read from the container (a cut-off or damaged file is a 400 ' +
          '`INVALID_MEDIA`) and become the video’s `duration`; `videoUrl` then points at GET /videos/{id}/media. ' +
          'A video without a transcript is queued for transcription (`transcriptStatus: queued`) when a provider ' +
          'is configured; otherwise it waits for PUT /videos/{id}/transcript. A new upload replaces the recording.',
        security,
        params: idParams,
        consumes: ['multipart/form-data'],
        body: uploadRecordingBody,
        response: { 201: mediaSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await attachRecording(media, callerId(request), request.params.id, request)),
  );

  app.get(
    '/videos/:id/media',
    {
      schema: {
        tags,
        summary:
          "Play a video's stored recording: range requests, ETag and Last-Modified (as the video is visible)",
        description:
          'Members of the video’s organization, or anyone for a public video. Answers `Range: bytes=…` with ' +
          '206 and `Content-Range` (seeking in a browser `<video>`), `If-None-Match` with 304. 404 when the ' +
          'video holds no stored recording.',
        security: optionalSecurity,
        params: idParams,
        response: {
          ...recordingResponses,
          ...errorResponses(401, 404, 416),
        },
      },
    },
    async (request, reply) =>
      sendRecording(reply, await recordingOf(media, optionalCallerId(request), request.params.id)),
  );

  app.get(
    '/share/:token/media',
    {
      schema: {
        tags: ['Share links'],
        summary: 'Play the stored recording of a shared video (no account): range requests as above',
        description:
          'For `<video src>`, which cannot send headers, a password-protected link takes its access token ' +
          '(POST /share/{token}/verify) as `?access=` (or `x-share-token`). Views are counted when the page opens ' +
          '(GET /share/{token}), not per range request. Revoked or expired links, deleted videos and videos ' +
          'without a stored recording: 404.',
        security: optionalSecurity,
        params: shareTokenParams,
        querystring: z.object({ access: z.string().max(1000).optional() }),
        response: {
          ...recordingResponses,
          ...errorResponses(401, 403, 404, 416),
        },
      },
    },
    async (request, reply) => {
      const header = request.headers['x-share-token'];
      const videoId = await playableSharedVideo(context, request.params.token, {
        accessToken: request.query.access ?? (typeof header === 'string' ? header : undefined),
        signedInEmail: () => requireAuth(request).user.email,
      });
      return sendRecording(reply, await storedRecording(media, videoId));
    },
  );
};

/**
 * A stored recording: from the local store with ranges, ETag and Last-Modified (a range past its
 * end is a 416); from an object store, a redirect to a short-lived presigned address that answers
 * ranges itself.
 */
function sendRecording(
  reply: FastifyReply,
  { playback, ...recording }: { playback: Playback; contentType: string; bytes: number },
) {
  if (playback.kind === 'redirect')
    return reply.header('cache-control', 'private, no-store').redirect(playback.url, 302);
  assertSatisfiable(reply.request.headers.range, recording.bytes);
  reply.header('cache-control', 'private, max-age=0, must-revalidate');
  reply.type(recording.contentType);
  return reply.sendFile(playback.file, playback.root, {
    etag: true,
    lastModified: true,
    acceptRanges: true,
  });
}
