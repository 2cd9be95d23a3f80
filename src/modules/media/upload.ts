import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, errors } from '../../http/errors.ts';
import { byteSize } from '../../lib/bytes.ts';
import type { MediaStore } from './storage.ts';

/** Parses recording forms for the routes of the plugin it is registered in: one file part. */
export async function registerRecordingForms(app: FastifyInstance, maxBytes: number) {
  await app.register(multipart, { limits: { fileSize: maxBytes, files: 1, fields: 5, parts: 6 } });
}

export type Received = { file: string; bytes: number; sha256: string; name: string };

/**
 * Streams the form's `file` part into the store's incoming folder, hashing and counting it on
 * the way; nothing is kept of a refused upload. The part may be the form's only field.
 */
export async function receiveRecording(
  request: FastifyRequest,
  store: MediaStore,
  maxBytes: number,
): Promise<Received> {
  if (!request.isMultipart()) {
    throw new AppError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'Send the recording as multipart/form-data, in a part named `file`',
    );
  }
  const part = await request.file();
  if (part?.fieldname !== 'file') {
    throw errors.validation([
      { path: 'body.file', message: 'a part named `file` holding the recording is required' },
    ]);
  }
  const file = await store.incomingFile();
  const hash = createHash('sha256');
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  try {
    await pipeline(part.file, hashing, createWriteStream(file));
    if (part.file.truncated) {
      throw new AppError(413, 'PAYLOAD_TOO_LARGE', `A recording takes at most ${byteSize(maxBytes)}`);
    }
    const { size } = await stat(file);
    if (size === 0) throw errors.validation([{ path: 'body.file', message: 'the file is empty' }]);
    return { file, bytes: size, sha256: hash.digest('hex'), name: part.filename };
  } catch (error) {
    await rm(file, { force: true });
    throw error;
  }
}
