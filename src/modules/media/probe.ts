import { open } from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';
import { parseFile } from 'music-metadata';
import { AppError } from '../../http/errors.ts';

/** What the service takes, by what the file's first bytes say it is (never by its name). */
const ACCEPTED: Record<string, string> = {
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  m4a: 'audio/mp4',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/ogg',
  flac: 'audio/flac',
};
export const ACCEPTED_FORMATS = 'mp4, webm, mov, m4a, mp3, wav, ogg, flac';

export type Probed = {
  extension: string;
  contentType: string;
  container: string | null;
  codec: string | null;
  durationSeconds: number;
};

const unreadable = (why: string) =>
  new AppError(400, 'INVALID_MEDIA', `The recording cannot be read: ${why}`, {
    details: [{ path: 'body.file', message: why }],
  });

/** A RIFF (WAV) file states its own length; a shorter file was cut off. */
async function riffIsWhole(file: string, size: number) {
  const handle = await open(file);
  try {
    const header = Buffer.alloc(8);
    await handle.read(header, 0, 8, 0);
    return header.readUInt32LE(4) + 8 <= size;
  } finally {
    await handle.close();
  }
}

/**
 * What a stored upload is: its type from its content, then its length and codec from its
 * container. A file of another type is a 415; a recording that is cut off or damaged (no length
 * can be read, or a WAV shorter than its header says) a 400.
 */
export async function probeRecording(file: string, size: number): Promise<Probed> {
  const type = await fileTypeFromFile(file);
  const contentType = type ? ACCEPTED[type.ext] : undefined;
  if (!type || !contentType) {
    throw new AppError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      `The file is not a recording the service takes (${ACCEPTED_FORMATS})${type ? `: it is ${type.mime}` : ''}`,
    );
  }
  if (type.ext === 'wav' && !(await riffIsWhole(file, size))) throw unreadable('the file is cut off');
  const metadata = await parseFile(file, { duration: true }).catch((error: Error) => {
    throw unreadable(error.message);
  });
  const duration = metadata.format.duration;
  if (!duration || !Number.isFinite(duration) || duration <= 0) {
    throw unreadable('no length could be read from it (cut off or damaged)');
  }
  return {
    extension: type.ext,
    contentType,
    container: metadata.format.container ?? null,
    codec: metadata.format.codec ?? null,
    durationSeconds: Math.round(duration * 1000) / 1000,
  };
}
