import type { Config } from '../../config.ts';
import { s3MediaStore } from './s3-store.ts';
import { localMediaStore, type MediaStore } from './storage.ts';

/** The store the configuration names: an S3-compatible bucket when S3_BUCKET is set, else the local disk. */
export const mediaStoreFor = (config: Pick<Config, 'dataDir' | 'media'>): MediaStore =>
  config.media.s3 ? s3MediaStore(config.dataDir, config.media.s3) : localMediaStore(config.dataDir);
