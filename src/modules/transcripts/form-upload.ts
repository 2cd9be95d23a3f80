import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, errors } from '../../http/errors.ts';
import { assertStorable } from '../../http/text-guard.ts';
import { TRANSCRIPT_CONTENT_TYPES, type TranscriptFormat } from './parse.ts';

/**
 * `curl -F file=@meeting.vtt`: a transcript file sent as `multipart/form-data` (field `file`,
 * optional field `format`) becomes the same `{text, format}` body as the JSON and raw forms, before
 * validation. The format, unless given, comes from the part's type or the file's extension, else it
 * is detected from the text.
 */

const FORMAT_OF_EXTENSION: Record<string, TranscriptFormat> = { vtt: 'vtt', srt: 'srt' };

/** Parses form bodies for the routes of the plugin it is registered in (and nowhere else). */
export async function registerTranscriptForms(app: FastifyInstance, maxBytes: number) {
  await app.register(multipart, { limits: { fileSize: maxBytes, files: 1, fields: 2, parts: 3 } });
}

/** A `format` field the caller gave wins (validated with the body); then the part's type, then the name. */
function formatOf(given: string | undefined, mimetype: string, filename: string): string | undefined {
  if (given !== undefined) return given;
  const extension = filename.split('.').pop()?.toLowerCase() ?? '';
  return TRANSCRIPT_CONTENT_TYPES[mimetype.toLowerCase()] ?? FORMAT_OF_EXTENSION[extension];
}

/** The form's parts, or why not: limits are 413s, anything busboy cannot read a 400 (never a 500). */
async function readForm(request: FastifyRequest) {
  try {
    const file = await request.file();
    if (file?.fieldname !== 'file') {
      throw errors.validation([
        { path: 'body.file', message: 'Required: the transcript file as the form field "file"' },
      ]);
    }
    return { file, content: await file.toBuffer() };
  } catch (error) {
    if (error instanceof AppError) throw error;
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 413) throw new AppError(413, 'PAYLOAD_TOO_LARGE', 'The transcript file is too large');
    throw new AppError(400, 'BAD_REQUEST', `Malformed multipart/form-data body: ${(error as Error).message}`);
  }
}

/** Route `preValidation`: replaces a form body with `{text, format}`; other bodies pass untouched. */
export async function transcriptFromForm(request: FastifyRequest) {
  if (!request.isMultipart()) return;
  const { file, content } = await readForm(request);
  const formatField = file.fields.format;
  const given = formatField && 'value' in formatField ? String(formatField.value) : undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(content);
  } catch {
    throw errors.validation([{ path: 'body.file', message: 'Must be UTF-8 text' }]);
  }
  // The app-wide text guard ran before the form was read: the same rule, applied here.
  assertStorable(text, 'body.file');
  request.body = { text, format: formatOf(given, file.mimetype, file.filename) };
}
