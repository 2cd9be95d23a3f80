import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** How a stored recording is played: a file this service sends, or an address it redirects to. */
export type Playback = { kind: 'file'; root: string; file: string } | { kind: 'redirect'; url: string };

/**
 * Where recordings live: the local disk (DATA_DIR/media) by default, or an S3-compatible object
 * store (s3-store.ts). Either way uploads first arrive on the local disk — in `incoming` (forms)
 * or `uploads` (resumable) — where they are checked before `publish` puts them in place.
 */
export type MediaStore = {
  /** The local working folder: incoming and resumable uploads; with the local store, the files too. */
  root: string;
  /** A fresh local path for an upload to be written to before it is checked. */
  incomingFile(): Promise<string>;
  /** Puts a checked upload at its key (the local file is consumed). */
  publish(incomingFile: string, key: string, contentType: string): Promise<void>;
  playback(key: string): Promise<Playback>;
  /** A local copy of the file, for tools that read files (transcription), and how to let it go. */
  localCopy(key: string): Promise<{ file: string; release(): Promise<void> }>;
  remove(key: string): Promise<void>;
  /** Every stored key and when it was written, for the sweep that removes what no video holds. */
  keys(): Promise<Array<{ key: string; modifiedAt: Date }>>;
  /** Incoming files older than `before` (form uploads abandoned mid-way). */
  staleIncoming(before: Date): Promise<string[]>;
};

const INCOMING = 'incoming';
/** Local folders that hold uploads on their way in, not stored recordings. */
const WORKING_FOLDERS = [INCOMING, 'uploads'];

/** A key for a new recording of a video: a new upload never overwrites the file being played. */
export const mediaKey = (videoId: string, extension: string) => `${videoId}/${randomUUID()}.${extension}`;

/** The incoming folder and its sweep, which every store keeps on the local disk. */
export function localWorkingFolder(root: string) {
  return {
    async incomingFile() {
      const folder = path.join(root, INCOMING);
      await mkdir(folder, { recursive: true });
      return path.join(folder, randomUUID());
    },
    async staleIncoming(before: Date) {
      const folder = path.join(root, INCOMING);
      const names = await readdir(folder).catch(() => [] as string[]);
      const stale: string[] = [];
      for (const name of names) {
        const file = path.join(folder, name);
        const info = await stat(file).catch(() => null);
        if (info && info.mtime < before) stale.push(file);
      }
      return stale;
    },
  };
}

export function localMediaStore(dataDir: string): MediaStore {
  const root = path.join(dataDir, 'media');
  const fileOf = (key: string) => {
    const file = path.resolve(root, key);
    // Keys are made by mediaKey; anything reaching outside the store is a bug, not a path to follow.
    if (!file.startsWith(`${root}${path.sep}`)) throw new Error(`media key outside the store: ${key}`);
    return file;
  };
  return {
    root,
    ...localWorkingFolder(root),
    async publish(incomingFile, key) {
      const target = fileOf(key);
      await mkdir(path.dirname(target), { recursive: true });
      await rename(incomingFile, target);
    },
    async playback(key) {
      return { kind: 'file', root, file: path.relative(root, fileOf(key)) };
    },
    async localCopy(key) {
      return { file: fileOf(key), release: async () => {} };
    },
    async remove(key) {
      await rm(fileOf(key), { force: true });
      // The video's folder goes with its last file.
      await rmdir(path.dirname(fileOf(key))).catch(() => {});
    },
    async keys() {
      const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
      const keys: Array<{ key: string; modifiedAt: Date }> = [];
      for (const entry of entries) {
        if (!entry.isFile()) continue;
        const file = path.join(entry.parentPath, entry.name);
        const key = path.relative(root, file).split(path.sep).join('/');
        if (WORKING_FOLDERS.some((folder) => key.startsWith(`${folder}/`))) continue;
        const info = await stat(file).catch(() => null);
        if (info) keys.push({ key, modifiedAt: info.mtime });
      }
      return keys;
    },
  };
}
