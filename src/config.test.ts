import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from './config.ts';

describe('parseConfig', () => {
  it('applies the documented defaults', () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      env: 'development',
      port: 3000,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      databaseUrl: undefined,
      embeddedPgPort: 54320,
      appUrl: 'http://localhost:3000',
      logLevel: 'info',
      trustProxy: false,
      corsOrigins: ['http://localhost:3000'],
      secret: undefined,
      rateLimitPerMinute: 600,
      version: '1.0.0',
    });
  });

  it('reads and converts every variable', () => {
    const config = parseConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATA_DIR: '/var/lib/khub',
      DATABASE_URL: 'postgresql://u:p@db:5432/khub',
      APP_URL: 'https://hub.example.com/',
      LOG_LEVEL: 'warn',
      TRUST_PROXY: '2',
      CORS_ORIGINS: 'https://a.example.com, https://b.example.com/',
      SECRET: 's'.repeat(32),
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      dataDir: '/var/lib/khub',
      databaseUrl: 'postgresql://u:p@db:5432/khub',
      appUrl: 'https://hub.example.com',
      logLevel: 'warn',
      trustProxy: 2,
      corsOrigins: ['https://a.example.com', 'https://b.example.com'],
      secret: 's'.repeat(32),
    });
  });

  it.each([
    ['true', true],
    ['false', false],
    ['10.0.0.0/8, 127.0.0.1', ['10.0.0.0/8', '127.0.0.1']],
  ])('parses TRUST_PROXY=%s', (value, expected) => {
    expect(parseConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it('leaves the local engine unmetered unless AI_METER_LOCAL says otherwise', () => {
    expect(parseConfig({}).ai.meterLocal).toBe(false);
    expect(parseConfig({ AI_METER_LOCAL: 'true' }).ai.meterLocal).toBe(true);
  });

  it('stores recordings up to 2 GiB and transcribes none unless a provider is set, with its base URL', () => {
    expect(parseConfig({}).media).toEqual({
      maxBytes: 2 * 1024 ** 3,
      s3: undefined,
      transcription: { provider: 'none' },
    });
    expect(() => parseConfig({ TRANSCRIBE_PROVIDER: 'openai-compatible' })).toThrow(/TRANSCRIBE_BASE_URL/);
    expect(
      parseConfig({
        TRANSCRIBE_PROVIDER: 'openai-compatible',
        TRANSCRIBE_BASE_URL: 'http://whisper.internal:8080/v1/',
        MEDIA_MAX_BYTES: '1048576',
      }).media,
    ).toEqual({
      maxBytes: 1048576,
      s3: undefined,
      transcription: {
        provider: 'openai-compatible',
        baseUrl: 'http://whisper.internal:8080/v1',
        apiKey: undefined,
        model: 'whisper-1',
        maxBytes: 25 * 1024 ** 2,
        timeoutMs: 600_000,
        creditsPerMinute: 1,
        ffmpegPath: undefined,
      },
    });
    expect(() => parseConfig({ TRANSCRIBE_PROVIDER: 'whisper' })).toThrow(/TRANSCRIBE_PROVIDER/);
  });

  it('keeps recordings on the local disk unless S3_BUCKET names a bucket, with both keys or none', () => {
    expect(parseConfig({}).media.s3).toBeUndefined();
    expect(
      parseConfig({ S3_BUCKET: 'recordings', S3_ENDPOINT: 'http://minio.internal:9000' }).media.s3,
    ).toEqual({
      bucket: 'recordings',
      endpoint: 'http://minio.internal:9000',
      region: 'us-east-1',
      accessKeyId: undefined,
      secretAccessKey: undefined,
      forcePathStyle: true,
      presignSeconds: 900,
    });
    // AWS itself: no endpoint, virtual-hosted buckets.
    expect(parseConfig({ S3_BUCKET: 'recordings', S3_REGION: 'eu-west-1' }).media.s3).toMatchObject({
      region: 'eu-west-1',
      forcePathStyle: false,
    });
    expect(() => parseConfig({ S3_BUCKET: 'recordings', S3_ACCESS_KEY_ID: 'AKIA' })).toThrow(
      /S3_SECRET_ACCESS_KEY/,
    );
  });

  it('treats an empty variable as unset', () => {
    expect(parseConfig({ PORT: '', DATABASE_URL: '' })).toMatchObject({ port: 3000, databaseUrl: undefined });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['EMBEDDED_PG_PORT', '0'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['APP_URL', 'not a url'],
    ['LOG_LEVEL', 'loud'],
    ['TRUST_PROXY', 'yes please'],
    ['CORS_ORIGINS', 'example.com'],
    ['SECRET', 'short'],
    ['RATE_LIMIT_PER_MINUTE', '-5'],
    ['NODE_ENV', 'staging'],
    ['AI_METER_LOCAL', 'sometimes'],
  ])('rejects %s=%s with a message naming the variable', (name, value) => {
    expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => parseConfig({ [name]: value })).toThrow(
      new RegExp(`^Invalid configuration:\\n\\s+${name}: `),
    );
  });

  it('bills locally by default, and needs the keys and every price for Stripe', () => {
    expect(parseConfig({}).billing).toEqual({
      provider: 'local',
      stripe: undefined,
      currency: 'usd',
      freeSeats: 10,
      freeVideos: 500,
    });
    expect(() => parseConfig({ BILLING_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_1' })).toThrow(
      /STRIPE_WEBHOOK_SECRET: is required when BILLING_PROVIDER is stripe[\s\S]*STRIPE_PRICE_BUSINESS_YEAR/,
    );
    const prices = {
      STRIPE_PRICE_PRO_MONTH: 'price_a',
      STRIPE_PRICE_PRO_YEAR: 'price_b',
      STRIPE_PRICE_BUSINESS_MONTH: 'price_c',
      STRIPE_PRICE_BUSINESS_YEAR: 'price_d',
    };
    const stripe = parseConfig({
      BILLING_PROVIDER: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_1',
      STRIPE_WEBHOOK_SECRET: 'whsec_1',
      BILLING_CURRENCY: 'EUR',
      ...prices,
    }).billing;
    expect(stripe).toMatchObject({
      currency: 'eur',
      stripe: {
        apiUrl: 'https://api.stripe.com',
        prices: {
          pro: { month: 'price_a', year: 'price_b' },
          business: { month: 'price_c', year: 'price_d' },
        },
      },
    });
    expect(() => parseConfig({ BILLING_CURRENCY: 'dollars' })).toThrow(
      /BILLING_CURRENCY: must be a three-letter/,
    );
  });

  it('names every bad variable at once', () => {
    try {
      parseConfig({ PORT: 'x', LOG_LEVEL: 'y' });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toContain('PORT:');
      expect((error as Error).message).toContain('LOG_LEVEL:');
    }
  });
});

describe('loadConfig secret', () => {
  let dataDir: string;
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('generates a secret once, stores it with mode 0600 and reuses it', () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'kh-config-'));
    const first = loadConfig({ DATA_DIR: dataDir });
    expect(first.secret.length).toBeGreaterThanOrEqual(32);
    const file = path.join(dataDir, 'secret');
    expect(readFileSync(file, 'utf8').trim()).toBe(first.secret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadConfig({ DATA_DIR: dataDir }).secret).toBe(first.secret);
  });

  it('prefers SECRET from the environment and writes nothing', () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'kh-config-'));
    const secret = 'x'.repeat(40);
    expect(loadConfig({ DATA_DIR: dataDir, SECRET: secret }).secret).toBe(secret);
    expect(() => statSync(path.join(dataDir, 'secret'))).toThrow();
  });
});
