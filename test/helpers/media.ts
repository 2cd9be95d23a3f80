import { type Dirent, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { App } from '../../src/app.ts';
import type { SignedUpUser } from './factories.ts';

/** A real recording: 2.27 s of synthesized speech ("The night batch job filled the disk."), WAV, 36 KB. */
export const SPEECH = readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'media', 'speech.wav'));

/** A multipart body with one file part, as `curl -F file=@name` sends it. */
export function fileForm(
  bytes: Buffer,
  name: string,
  contentType = 'application/octet-stream',
  field = 'file',
) {
  const boundary = `----khub${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\n` +
      `Content-Type: ${contentType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    payload: Buffer.concat([head, bytes, tail]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** Creates a video of `user`'s through the API, to upload to; `extra` adds to or overrides its fields. */
export async function createVideo(app: App, user: SignedUpUser, extra: Record<string, unknown> = {}) {
  const response = await app.inject({
    method: 'POST',
    url: '/videos',
    headers: user.headers,
    payload: { title: 'Retro recording', duration: '0', organizationId: user.organizationId, ...extra },
  });
  expect(response.statusCode).toBe(201);
  return response.json().id as string;
}

/** Uploads a recording to a video in one multipart request, as `user` (anonymously with null). */
export function uploadRecording(
  app: App,
  videoId: string,
  user: { headers: Record<string, string> } | null,
  body = fileForm(SPEECH, 'retro.wav'),
) {
  return app.inject({
    method: 'POST',
    url: `/videos/${videoId}/media`,
    headers: { ...(user?.headers ?? {}), ...body.headers },
    payload: body.payload,
  });
}

/** A valid WAV of silence (8 kHz, mono, 16-bit) of about `bytes` bytes: for size limits. */
export function silenceWav(bytes: number) {
  const data = Math.max(2, bytes - 44) & ~1;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data, 40);
  return Buffer.concat([header, Buffer.alloc(data)]);
}

/** Every file under a service's DATA_DIR/media (stored recordings and uploads on their way in). */
export const filesIn = (dataDir: string) =>
  (readdirSync(path.join(dataDir, 'media'), { recursive: true, withFileTypes: true }) as Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dataDir, path.join(entry.parentPath, entry.name)));
