import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileStore } from '@tus/file-store';
import { Metadata, Server } from '@tus/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerId } from '../../http/auth.ts';
import { AppError, type ErrorBody, errorBodyOf, errors } from '../../http/errors.ts';
import { UUID_PATTERN } from '../../http/ids.ts';
import { requireVideoAccess } from '../videos/access.ts';
import type { MediaView } from './schemas.ts';
import { attachReceived, type MediaContext } from './service.ts';

/** Where resumable uploads grow until finished: beside the store's files, on the same disk. */
export const RESUMABLE_FOLDER = 'uploads';
/** An upload not finished within a day is abandoned: the media sweep removes it. */
export const RESUMABLE_EXPIRY_MS = 24 * 60 * 60 * 1000;

export const resumableStore = (storeRoot: string) =>
  new FileStore({
    directory: path.join(storeRoot, RESUMABLE_FOLDER),
    expirationPeriodInMilliseconds: RESUMABLE_EXPIRY_MS,
  });

async function sha256Of(file: string) {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** tus answers its own errors in text: each becomes the API's one error shape, by status. */
const UPLOAD_ERROR_CODES: Record<number, string> = {
  400: 'INVALID_UPLOAD',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'UPLOAD_OFFSET_CONFLICT',
  410: 'UPLOAD_GONE',
  412: 'TUS_VERSION_UNSUPPORTED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  460: 'UPLOAD_CHECKSUM_MISMATCH',
};

/** Resumable uploads (tus 1.0, @tus/server) whose finished files become videos' recordings. */
export function resumableUploads(context: MediaContext) {
  const datastore = resumableStore(context.store.root);
  /** Recordings stored by the PATCH that finished their upload, until that PATCH answers with them. */
  const finished = new Map<string, MediaView>();
  const tus = new Server({
    path: '/uploads',
    datastore,
    maxSize: context.config.media.maxBytes,
    relativeLocation: true,
    onUploadFinish: async (_request, upload) => {
      const file = path.join(datastore.directory, upload.id);
      try {
        const { size } = await stat(file);
        const received = {
          file,
          bytes: size,
          sha256: await sha256Of(file),
          name: upload.metadata?.filename ?? '',
        };
        const stored = await attachReceived(
          context,
          upload.metadata?.userId ?? '',
          upload.metadata?.videoId ?? '',
          received,
        );
        finished.set(upload.id, stored);
        return { status_code: 200 };
      } catch (error) {
        if (!(error instanceof AppError)) {
          context.logger.error({ err: error, uploadId: upload.id }, 'a finished upload could not be stored');
          throw error;
        }
        throw { status_code: error.statusCode, body: JSON.stringify(errorBodyOf(error)) };
      } finally {
        // The file was moved into the store, or refused; its record of the upload goes either way.
        await rm(file, { force: true });
        await rm(`${file}.json`, { force: true });
      }
    },
  });

  /** Hands the request to tus as a web Request, and answers with what it says, errors in the one shape. */
  async function handOver(
    request: FastifyRequest,
    reply: FastifyReply,
    overrides: Record<string, string> = {},
  ) {
    const hasBody = request.method === 'PATCH';
    const answer = await tus.handleWeb(
      new Request(`${context.config.appUrl}${request.url}`, {
        method: request.method,
        headers: { ...(request.headers as Record<string, string>), ...overrides },
        ...(hasBody ? { body: Readable.toWeb(request.raw) as ReadableStream, duplex: 'half' } : {}),
      } as RequestInit),
    );
    for (const [name, value] of answer.headers) {
      // Fastify sets these itself; tus's CORS headers give way to the service's CORS policy.
      if (
        !['content-length', 'content-type', 'connection'].includes(name) &&
        !name.startsWith('access-control-')
      ) {
        reply.header(name, value);
      }
    }
    const text = await answer.text();
    // The last PATCH answers with the stored recording; the others carry headers only.
    const { id } = (request.params ?? {}) as { id?: string };
    const stored = id ? finished.get(id) : undefined;
    if (id) finished.delete(id);
    if (answer.status < 400) return reply.status(answer.status).send(stored);
    let body: ErrorBody;
    try {
      body = JSON.parse(text);
    } catch {
      body = {
        success: false,
        error: text.trim() || 'Upload refused',
        code: UPLOAD_ERROR_CODES[answer.status] ?? 'UPLOAD_ERROR',
      };
    }
    return reply.status(answer.status).type('application/json').send(body);
  }

  return {
    /** POST /uploads: only the video's author or an admin; the creator is stamped by the service. */
    async create(request: FastifyRequest, reply: FastifyReply) {
      let metadata: Record<string, string | null>;
      try {
        metadata = Metadata.parse(String(request.headers['upload-metadata'] ?? ''));
      } catch {
        metadata = {};
      }
      const videoId = metadata.videoId ?? '';
      if (!UUID_PATTERN.test(videoId)) {
        throw errors.validation([
          {
            path: 'headers.upload-metadata',
            message: 'must be tus metadata (`key base64` pairs) naming videoId, a video you may edit',
          },
        ]);
      }
      await requireVideoAccess(context.db, { videoId, userId: callerId(request), action: 'edit' });
      // Who created an upload is the service's to say, never the client's.
      return handOver(request, reply, {
        'upload-metadata': Metadata.stringify({ ...metadata, userId: callerId(request) }),
      });
    },
    /** HEAD, PATCH, DELETE /uploads/{id}: its creator only (anyone else: 404, as for no upload). */
    async continue(request: FastifyRequest, reply: FastifyReply) {
      const { id } = request.params as { id: string };
      const upload = await datastore.getUpload(id).catch(() => null);
      if (upload?.metadata?.userId !== callerId(request)) throw errors.notFound('Upload not found');
      return handOver(request, reply);
    },
  };
}
