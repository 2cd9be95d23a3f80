import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Config } from '../../config.ts';
import { localWorkingFolder, type MediaStore } from './storage.ts';

type S3Settings = NonNullable<Config['media']['s3']>;

/**
 * Recordings in an S3-compatible object store (AWS S3, MinIO, Cloudflare R2, …): published with
 * one PUT (a recording is at most MEDIA_MAX_BYTES; S3 takes 5 GB in one), played by redirecting to
 * a presigned GET that lives S3_PRESIGN_SECONDS (the store answers range requests itself), copied
 * to the local disk only while a tool must read the file (transcription).
 */
export function s3MediaStore(dataDir: string, settings: S3Settings): MediaStore {
  const root = path.join(dataDir, 'media');
  const client = new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.forcePathStyle,
    // Checksums only where S3 requires them: many S3-compatible stores do not read the SDK's
    // aws-chunked uploads with checksum trailers, and would keep the framing as the file.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(settings.accessKeyId && settings.secretAccessKey
      ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
      : {}),
  });
  const Bucket = settings.bucket;
  const working = localWorkingFolder(root);
  return {
    root,
    ...working,
    async publish(incomingFile, key, contentType) {
      const { size } = await stat(incomingFile);
      await client.send(
        new PutObjectCommand({
          Bucket,
          Key: key,
          Body: createReadStream(incomingFile),
          ContentLength: size,
          ContentType: contentType,
        }),
      );
      await rm(incomingFile, { force: true });
    },
    async playback(key) {
      const url = await getSignedUrl(client, new GetObjectCommand({ Bucket, Key: key }), {
        expiresIn: settings.presignSeconds,
      });
      return { kind: 'redirect', url };
    },
    async localCopy(key) {
      const file = await working.incomingFile();
      const object = await client.send(new GetObjectCommand({ Bucket, Key: key }));
      await pipeline(object.Body as Readable, createWriteStream(file));
      return { file, release: () => rm(file, { force: true }) };
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },
    async keys() {
      const keys: Array<{ key: string; modifiedAt: Date }> = [];
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket, ContinuationToken }));
        for (const object of page.Contents ?? []) {
          if (object.Key) keys.push({ key: object.Key, modifiedAt: object.LastModified ?? new Date(0) });
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
      return keys;
    },
  };
}
