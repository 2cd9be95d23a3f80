import type { MultipartFile } from '@fastify/multipart';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Entry, ZipFile } from 'yauzl';
import yauzl from 'yauzl';
import type { Db } from '../../db/client.ts';
import { callerId } from '../../http/auth.ts';
import { AppError, errors } from '../../http/errors.ts';
import { UUID_PATTERN } from '../../http/ids.ts';
import { assertStorable } from '../../http/text-guard.ts';
import { byteSize } from '../../lib/bytes.ts';
import { requireRole } from '../organizations/access.ts';

/**
 * How an import's form is read: its text fields and its files, each `.zip` unpacked into the
 * transcript files it holds, become the `{organizationId, channelId?, visibility?, files}` body the
 * route's schema validates (and OpenAPI describes).
 */

const MIB = 1024 * 1024;

export const IMPORT_LIMITS = {
  /** Files of one import, each entry of a zip counted. */
  files: 200,
  /**
   * One transcript file: a part that is not a zip, or a zip entry (its size as the archive
   * declares it, checked before it is unpacked). A zip part itself may take the whole request.
   */
  fileBytes: 5 * MIB,
  /** The whole request; and, separately, the transcript files of the import once unpacked. */
  requestBytes: 50 * MIB,
} as const;

const FILE_FIELDS = new Set(['files', 'file']);
const TEXT_FIELDS = 10;

/** Parses form bodies for the routes of the plugin it is registered in (and nowhere else). */
export async function registerImportForms(app: FastifyInstance) {
  await app.register(multipart, {
    limits: {
      // Per part: a zip may be as large as the request; other parts are held to `fileBytes` as they are read.
      fileSize: IMPORT_LIMITS.requestBytes,
      files: IMPORT_LIMITS.files,
      fields: TEXT_FIELDS,
      parts: IMPORT_LIMITS.files + TEXT_FIELDS,
    },
  });
}

const tooLarge = (message: string) => new AppError(413, 'PAYLOAD_TOO_LARGE', message);
const fileTooLarge = (name: string) =>
  tooLarge(`${name} is larger than ${byteSize(IMPORT_LIMITS.fileBytes)}`);
const requestTooLarge = () =>
  tooLarge(`An import request takes at most ${byteSize(IMPORT_LIMITS.requestBytes)}`);
const tooMany = () =>
  errors.validation([
    {
      path: 'body.files',
      message: `at most ${IMPORT_LIMITS.files} files per import (each entry of a zip counts)`,
    },
  ]);
const unreadableZip = (zipName: string, reason: string) =>
  errors.validation([
    { path: 'body.files', message: `${zipName} is not a zip archive that can be read (${reason})` },
  ]);

/** The bytes the import's files take up once unpacked, across every part and zip of the request. */
class Budget {
  private used = 0;

  take(bytes: number, name: string) {
    this.used += bytes;
    if (this.used > IMPORT_LIMITS.requestBytes) {
      throw tooLarge(
        `The files of an import take at most ${byteSize(IMPORT_LIMITS.requestBytes)} unpacked (reached at ${name})`,
      );
    }
  }
}

/** `__MACOSX/` resource forks, dotfiles (`.DS_Store`) and folders are not transcripts. */
const ignored = (path: string) =>
  path.endsWith('/') || path.split('/').some((segment) => segment.startsWith('.') || segment === '__MACOSX');

/** By name, or by the signature of a zip's first record (`PK\x03\x04`, or `PK\x05\x06` when empty). */
const isZip = (name: string, bytes: Uint8Array) =>
  name.toLowerCase().endsWith('.zip') ||
  (bytes[0] === 0x50 &&
    bytes[1] === 0x4b &&
    ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6)));

/** Why a zip cannot be read (its structure, not a limit). */
class ZipFormatError extends Error {}

/**
 * An entry's bytes, read from yauzl's stream (inflated for a deflated entry) and counted as they
 * come: past the declared size the stream is dropped, so an archive that lies about its sizes costs
 * no more than the sizes it declares. yauzl's own check (`validateEntrySizes`) stops a deflated
 * entry there too, and finds one that unpacks to less.
 */
async function entryBytes(zip: ZipFile, entry: Entry, name: string): Promise<Buffer> {
  if (entry.isEncrypted()) throw new ZipFormatError(`${name} is encrypted`);
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
    throw new ZipFormatError(`${name} uses compression method ${entry.compressionMethod}`);
  }
  const declared = entry.uncompressedSize;
  const larger = () =>
    errors.validation([
      { path: 'body.files', message: `${name} unpacks to more than the ${declared} bytes it declares` },
    ]);
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of await zip.openReadStreamPromise(entry)) {
      length += (chunk as Buffer).length;
      if (length > declared) throw larger();
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    const message = (error as Error).message;
    if (message.startsWith('too many bytes in the stream')) throw larger();
    if (message.startsWith('not enough bytes in the stream')) {
      throw new ZipFormatError(`${name} unpacks to less than it declares`);
    }
    throw error;
  }
  if (length < declared) throw new ZipFormatError(`${name} unpacks to less than it declares`);
  return Buffer.concat(chunks, length);
}

/**
 * The transcript files of a zip, named `archive.zip/folder/file.vtt`, read with yauzl from its
 * central directory one entry at a time. An entry's declared size is checked against the file limit
 * and the import's budget before it is unpacked, and unpacking stops at that size (see entryBytes).
 */
async function unpackZip(zipName: string, bytes: Buffer, budget: Budget): Promise<File[]> {
  const files: File[] = [];
  let zip: ZipFile | undefined;
  try {
    zip = await yauzl.fromBufferPromise(bytes, {
      lazyEntries: true,
      validateEntrySizes: true,
      // UTF-8 when the archive says so, else CP437; `\` separators (some Windows tools) become `/`.
      decodeStrings: true,
      strictFileNames: false,
    });
    for await (const entry of zip.eachEntry()) {
      if (ignored(entry.fileName)) continue;
      const name = `${zipName}/${entry.fileName}`;
      if (files.length >= IMPORT_LIMITS.files) throw tooMany();
      // A stored entry whose two sizes differ is refused by yauzl (validateEntrySizes).
      if (entry.uncompressedSize > IMPORT_LIMITS.fileBytes) throw fileTooLarge(name);
      budget.take(entry.uncompressedSize, name);
      files.push(new File([(await entryBytes(zip, entry, name)) as Buffer<ArrayBuffer>], name));
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw unreadableZip(zipName, (error as Error).message);
  } finally {
    zip?.close();
  }
  return files;
}

/** Busboy's limits and parse errors, in the error shape: never a 500. */
function formError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const { code, statusCode, message } = error as { code?: string; statusCode?: number; message: string };
  if (code === 'FST_FILES_LIMIT') return tooMany();
  if (code === 'FST_REQ_FILE_TOO_LARGE') return requestTooLarge();
  if (statusCode === 413) return tooLarge('The form has too many parts');
  return new AppError(400, 'BAD_REQUEST', `Malformed multipart/form-data body: ${message}`);
}

/**
 * A file part's bytes, read as they arrive: a part that is not a zip is refused as soon as it
 * passes the file limit, any part as soon as the request passes its own.
 */
async function readFilePart(part: MultipartFile, name: string, receivedBefore: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  let zip: boolean | undefined;
  for await (const chunk of part.file as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    length += chunk.length;
    if (receivedBefore + length > IMPORT_LIMITS.requestBytes || part.file.truncated) throw requestTooLarge();
    if (length > IMPORT_LIMITS.fileBytes) {
      zip ??= isZip(name, Buffer.concat(chunks.slice(0, 4)));
      if (!zip) throw fileTooLarge(name);
    }
  }
  return Buffer.concat(chunks, length);
}

const organizationFirst = () =>
  errors.validation([
    {
      path: 'body.organizationId',
      message: 'is required, and must come before the files in the form',
    },
  ]);

/**
 * Route `preValidation`: the form, read whole (within the limits), becomes the body. The caller's
 * role is checked as soon as `organizationId` is read, which must be before the first file: no
 * file of someone who may not import is buffered or unpacked.
 */
export const importFromForm = (db: Db) =>
  async function importFromForm(request: FastifyRequest) {
    if (!request.isMultipart()) {
      throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the files as multipart/form-data');
    }
    if (Number(request.headers['content-length'] ?? 0) > IMPORT_LIMITS.requestBytes) throw requestTooLarge();
    const userId = callerId(request);
    const fields: Record<string, string> = {};
    const files: File[] = [];
    const budget = new Budget();
    let allowed = false;
    let received = 0;
    try {
      for await (const part of request.parts()) {
        if (part.type === 'field') {
          const value = String(part.value);
          fields[part.fieldname] = value;
          if (part.fieldname === 'organizationId') {
            allowed = false;
            if (!UUID_PATTERN.test(value)) {
              throw errors.validation([{ path: 'body.organizationId', message: 'must be a UUID' }]);
            }
            await requireRole(db, { userId, organizationId: value.toLowerCase(), minRole: 'member' });
            allowed = true;
          }
          continue;
        }
        const name = part.filename || 'untitled';
        if (!FILE_FIELDS.has(part.fieldname)) {
          throw errors.validation([
            { path: `body.${part.fieldname}`, message: 'files go in the form field "files" (or "file")' },
          ]);
        }
        if (!allowed) throw organizationFirst();
        const bytes = await readFilePart(part, name, received);
        received += bytes.length;
        if (isZip(name, bytes)) {
          files.push(...(await unpackZip(name, bytes, budget)));
        } else {
          budget.take(bytes.length, name);
          files.push(new File([bytes as Buffer<ArrayBuffer>], name, { type: part.mimetype }));
        }
      }
    } catch (error) {
      throw formError(error);
    }
    // The app-wide text guard ran before the form was read: the same rule, applied here.
    assertStorable(fields, 'body');
    assertStorable(
      files.map((file) => file.name),
      'body.files',
    );
    request.body = { ...fields, files };
  };
