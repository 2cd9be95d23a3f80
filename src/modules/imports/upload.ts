import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unzipSync } from 'fflate';
import { AppError, errors } from '../../http/errors.ts';
import { assertStorable } from '../../http/text-guard.ts';

/**
 * How an import's form is read: its text fields and its files, each `.zip` unpacked into the
 * transcript files it holds, become the `{organizationId, channelId?, visibility?, files}` body the
 * route's schema validates (and OpenAPI describes).
 */

const MIB = 1024 * 1024;
export const IMPORT_LIMITS = {
  /** Files of one import, each entry of a zip counted. */
  files: 200,
  /** One transcript file (a zip entry as declared in the archive, before it is unpacked). */
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
      fileSize: IMPORT_LIMITS.fileBytes,
      files: IMPORT_LIMITS.files,
      fields: TEXT_FIELDS,
      parts: IMPORT_LIMITS.files + TEXT_FIELDS,
    },
  });
}

const tooLarge = (message: string) => new AppError(413, 'PAYLOAD_TOO_LARGE', message);
const tooMany = () =>
  errors.validation([
    {
      path: 'body.files',
      message: `at most ${IMPORT_LIMITS.files} files per import (each entry of a zip counts)`,
    },
  ]);
const mebibytes = (bytes: number) => `${bytes / MIB} MiB`;

/** The bytes the import's files take up once unpacked, across every part and zip of the request. */
class Budget {
  private used = 0;

  take(bytes: number, name: string) {
    this.used += bytes;
    if (this.used > IMPORT_LIMITS.requestBytes) {
      throw tooLarge(
        `The files of an import take at most ${mebibytes(IMPORT_LIMITS.requestBytes)} unpacked (reached at ${name})`,
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

/**
 * The transcript files of a zip, named `archive.zip/folder/file.vtt`. Entries are inflated into
 * buffers of their declared size, and a declared size over the file limit is refused before
 * anything is inflated: a zip bomb costs nothing.
 */
function unpackZip(zipName: string, bytes: Uint8Array, budget: Budget): File[] {
  let entries = 0;
  let unpacked: Record<string, Uint8Array>;
  try {
    unpacked = unzipSync(bytes, {
      filter: (entry) => {
        if (ignored(entry.name)) return false;
        const name = `${zipName}/${entry.name}`;
        if (++entries > IMPORT_LIMITS.files) throw tooMany();
        const size = Math.max(entry.originalSize, entry.compression === 0 ? entry.size : 0);
        if (size > IMPORT_LIMITS.fileBytes) {
          throw tooLarge(`${name} is larger than ${mebibytes(IMPORT_LIMITS.fileBytes)}`);
        }
        budget.take(size, name);
        return true;
      },
    });
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw errors.validation([
      {
        path: 'body.files',
        message: `${zipName} is not a zip archive that can be read (${(error as Error).message})`,
      },
    ]);
  }
  return Object.entries(unpacked).map(
    ([name, data]) => new File([data as Uint8Array<ArrayBuffer>], `${zipName}/${name}`),
  );
}

/** Busboy's limits and parse errors, in the error shape: never a 500. */
function formError(error: unknown, fileName = 'a file'): AppError {
  if (error instanceof AppError) return error;
  const { code, statusCode, message } = error as { code?: string; statusCode?: number; message: string };
  if (code === 'FST_FILES_LIMIT') return tooMany();
  if (code === 'FST_REQ_FILE_TOO_LARGE') {
    return tooLarge(`${fileName} is larger than ${mebibytes(IMPORT_LIMITS.fileBytes)}`);
  }
  if (statusCode === 413) return tooLarge('The form has too many parts');
  return new AppError(400, 'BAD_REQUEST', `Malformed multipart/form-data body: ${message}`);
}

/** Route `preValidation`: the form, read whole (within the limits), becomes the body. */
export async function importFromForm(request: FastifyRequest) {
  if (!request.isMultipart()) {
    throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the files as multipart/form-data');
  }
  if (Number(request.headers['content-length'] ?? 0) > IMPORT_LIMITS.requestBytes) {
    throw tooLarge(`An import request takes at most ${mebibytes(IMPORT_LIMITS.requestBytes)}`);
  }
  const fields: Record<string, string> = {};
  const files: File[] = [];
  const budget = new Budget();
  let received = 0;
  let current: string | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        fields[part.fieldname] = String(part.value);
        continue;
      }
      current = part.filename || 'untitled';
      if (!FILE_FIELDS.has(part.fieldname)) {
        throw errors.validation([
          { path: `body.${part.fieldname}`, message: 'files go in the form field "files" (or "file")' },
        ]);
      }
      const bytes = await part.toBuffer();
      received += bytes.length;
      if (received > IMPORT_LIMITS.requestBytes) {
        throw tooLarge(`An import request takes at most ${mebibytes(IMPORT_LIMITS.requestBytes)}`);
      }
      if (isZip(current, bytes)) {
        files.push(...unpackZip(current, bytes, budget));
      } else {
        budget.take(bytes.length, current);
        // A fresh buffer of busboy's chunks, never a shared one.
        files.push(new File([bytes as Buffer<ArrayBuffer>], current, { type: part.mimetype }));
      }
    }
  } catch (error) {
    throw formError(error, current);
  }
  // The app-wide text guard ran before the form was read: the same rule, applied here.
  assertStorable(fields, 'body');
  assertStorable(
    files.map((file) => file.name),
    'body.files',
  );
  request.body = { ...fields, files };
}
