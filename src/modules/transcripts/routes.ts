import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { authenticated, callerId, optionalCallerId, optionalSecurity, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import { paginated } from '../../http/pagination.ts';
import { registerTranscriptForms, transcriptFromForm } from './form-upload.ts';
import { TRANSCRIPT_CONTENT_TYPES } from './parse.ts';
import {
  linkVideoSpeakersBody,
  listSpeakersQuery,
  putTranscriptBody,
  speakerSchema,
  transcriptSchema,
  updateSpeakerBody,
  videoSpeakersSchema,
} from './schemas.ts';
import { getSubtitles, getTranscript, putTranscript } from './service.ts';
import { linkVideoSpeakers, listSpeakers, updateSpeaker } from './speakers.ts';

const tags = ['Transcripts'];
/** Readable anonymously when the video is public; credentials, when sent, must be valid. */
const TRANSCRIPT_BODY_LIMIT = 25 * 1024 * 1024;

/** Where the transcript text was in the request, for errors that name the line that failed. */
function textPathOf(request: FastifyRequest) {
  if (request.isMultipart()) return 'body.file';
  return request.headers['content-type']?.startsWith('application/json') === true ? 'body.text' : 'body';
}

/** Routes for transcripts and subtitles of a video, and for the speakers found in transcripts. */
export const transcriptRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  // Only this plugin reads raw text bodies: they arrive as `{text, format}`, like the JSON form.
  await registerTranscriptForms(app, TRANSCRIPT_BODY_LIMIT);
  app.addContentTypeParser(
    Object.keys(TRANSCRIPT_CONTENT_TYPES),
    { parseAs: 'string', bodyLimit: TRANSCRIPT_BODY_LIMIT },
    (request, body, done) => {
      const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      done(null, { text: body, format: TRANSCRIPT_CONTENT_TYPES[type] });
    },
  );

  app.get(
    '/videos/:id/transcript',
    {
      schema: {
        tags,
        summary: "A video's transcript: the text as uploaded and its timed segments with speakers",
        description: 'Without a transcript: `{text: null, format: null, segments: []}`.',
        security: optionalSecurity,
        params: idParams,
        response: { 200: transcriptSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => getTranscript(context.db, optionalCallerId(request), request.params.id),
  );

  app.put(
    '/videos/:id/transcript',
    {
      onRequest: authenticated,
      preValidation: transcriptFromForm,
      bodyLimit: TRANSCRIPT_BODY_LIMIT,
      schema: {
        tags,
        summary: "Replace a video's transcript (its author or an admin)",
        description:
          'JSON `{text, format?}` (plain text, `Name: …` lines with optional `[hh:mm:ss]` timestamps, WebVTT or SRT, ' +
          'detected unless `format` is given; null removes the transcript) or `{segments}`; or the raw file as ' +
          '`text/plain`, `text/vtt` or `application/x-subrip`; or a file as `multipart/form-data` (field `file`, ' +
          'optional field `format`; `curl -F file=@meeting.vtt`). Up to 25 MiB. Untimed text gets times at 150 words ' +
          "a minute, scaled to the video's duration when known. A file that cannot be parsed: 400 " +
          '`INVALID_TRANSCRIPT` naming the line.',
        security,
        params: idParams,
        body: putTranscriptBody,
        response: { 200: transcriptSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => {
      return putTranscript(context, callerId(request), request.params.id, request.body, textPathOf(request));
    },
  );

  for (const format of ['vtt', 'srt'] as const) {
    app.get(
      `/videos/:id/subtitles.${format}`,
      {
        schema: {
          tags,
          summary: `The transcript as ${format === 'vtt' ? 'WebVTT (speakers as <v> voice tags)' : 'SRT (speakers as "Name: " prefixes)'}`,
          description: 'A video without a transcript: 404.',
          security: optionalSecurity,
          params: idParams,
          response: {
            200: {
              description: format === 'vtt' ? 'WebVTT' : 'SubRip',
              content: {
                [format === 'vtt' ? 'text/vtt' : 'application/x-subrip']: { schema: z.string() },
              },
            },
            ...errorResponses(401, 404),
          },
        },
      },
      async (request, reply) => {
        const text = await getSubtitles(context.db, optionalCallerId(request), request.params.id, format);
        return reply
          .type(format === 'vtt' ? 'text/vtt; charset=utf-8' : 'application/x-subrip; charset=utf-8')
          .send(text);
      },
    );
  }

  app.get(
    '/speakers',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'Speakers found in transcripts, by name, each with the number of videos they speak in',
        security,
        querystring: listSpeakersQuery,
        response: { 200: paginated(speakerSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listSpeakers(context.db, callerId(request), request.query),
  );

  app.patch(
    '/speakers/:id',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'Rename a speaker or link it to a member (admin or owner; userId null unlinks)',
        security,
        params: idParams,
        body: updateSpeakerBody,
        response: { 200: speakerSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => updateSpeaker(context, callerId(request), request.params.id, request.body),
  );

  app.patch(
    '/videos/:id/speakers',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: "Link the speakers of a video's transcript to members (the video's author or an admin)",
        security,
        params: idParams,
        body: linkVideoSpeakersBody,
        response: { 200: videoSpeakersSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      linkVideoSpeakers(context, callerId(request), request.params.id, request.body.speakers),
  );
};
