import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * Every environment variable the service reads is declared here, validated once at start-up.
 * The README's configuration table mirrors this schema.
 */

const port = z.coerce
  .number({ error: 'must be a whole number between 1 and 65535' })
  .int('must be a whole number between 1 and 65535')
  .min(1, 'must be a whole number between 1 and 65535')
  .max(65535, 'must be a whole number between 1 and 65535');

const positiveInt = z.coerce
  .number({ error: 'must be a positive whole number' })
  .int('must be a positive whole number')
  .positive('must be a positive whole number');

const postgresUrl = z
  .url({ error: 'must be a postgres:// or postgresql:// URL' })
  .refine((value) => /^postgres(ql)?:\/\//.test(value), 'must be a postgres:// or postgresql:// URL');

/** `true`/`false`, a hop count, or a comma-separated list of trusted proxy addresses/CIDRs. */
const trustProxy = z
  .string()
  .trim()
  .transform((value, ctx): boolean | number | string[] => {
    if (value === '' || value === 'false') return false;
    if (value === 'true') return true;
    if (/^\d+$/.test(value)) return Number(value);
    const list = value.split(',').map((entry) => entry.trim());
    if (list.some((entry) => !/^[0-9a-fA-F.:/]+$/.test(entry))) {
      ctx.addIssue({ code: 'custom', message: 'must be true, false, a hop count or a list of IPs/CIDRs' });
      return z.NEVER;
    }
    return list;
  });

const corsOrigins = z
  .string()
  .trim()
  .transform((value, ctx): string[] => {
    if (value === '') return [];
    const origins = value.split(',').map((entry) => entry.trim().replace(/\/$/, ''));
    for (const origin of origins) {
      if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
        ctx.addIssue({
          code: 'custom',
          message: `"${origin}" is not an origin like https://app.example.com`,
        });
      }
    }
    return origins;
  });

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

const emailList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((entry) => entry.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(z.array(z.email({ error: 'must be a comma-separated list of email addresses' })));

const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: port.default(3000),
    HOST: z.string().trim().min(1, 'must not be empty').default('127.0.0.1'),
    DATA_DIR: z.string().trim().min(1, 'must not be empty').default('./data'),
    DATABASE_URL: postgresUrl.optional(),
    EMBEDDED_PG_PORT: port.default(54320),
    DATABASE_POOL_SIZE: positiveInt.default(10),
    APP_URL: z.url({ error: 'must be an absolute http(s) URL' }).optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    TRUST_PROXY: trustProxy.default(false),
    CORS_ORIGINS: corsOrigins.optional(),
    SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    RATE_LIMIT_PER_MINUTE: positiveInt.default(600),
    SHUTDOWN_TIMEOUT_MS: positiveInt.default(10_000),
    NOTIFICATION_STREAM_HEARTBEAT_SECONDS: positiveInt.default(25),
    AI_MONTHLY_CREDITS: positiveInt.default(1000),
    BILLING_PROVIDER: z.enum(['local', 'stripe']).default('local'),
    STRIPE_SECRET_KEY: z.string().trim().min(1).optional(),
    STRIPE_WEBHOOK_SECRET: z.string().trim().min(1).optional(),
    STRIPE_API_URL: httpUrl.default('https://api.stripe.com'),
    STRIPE_PRICE_PRO_MONTH: z.string().trim().min(1).optional(),
    STRIPE_PRICE_PRO_YEAR: z.string().trim().min(1).optional(),
    STRIPE_PRICE_BUSINESS_MONTH: z.string().trim().min(1).optional(),
    STRIPE_PRICE_BUSINESS_YEAR: z.string().trim().min(1).optional(),
    BILLING_CURRENCY: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z]{3}$/, 'must be a three-letter ISO 4217 currency code such as usd')
      .default('usd'),
    FREE_PLAN_SEATS: positiveInt.default(10),
    FREE_PLAN_VIDEOS: positiveInt.default(500),
    AI_PROVIDER: z.enum(['local', 'openai']).default('local'),
    AI_METER_LOCAL: z.stringbool({ error: 'must be true or false' }).default(false),
    AI_BASE_URL: httpUrl.optional(),
    AI_API_KEY: z.string().trim().min(1).optional(),
    AI_MODEL: z.string().trim().min(1).optional(),
    AI_EMBEDDING_MODEL: z.string().trim().min(1).optional(),
    AI_TIMEOUT_MS: positiveInt.default(30_000),
    MEDIA_MAX_BYTES: positiveInt.default(2 * 1024 ** 3),
    S3_BUCKET: z.string().trim().min(1).optional(),
    S3_ENDPOINT: httpUrl.optional(),
    S3_REGION: z.string().trim().min(1).default('us-east-1'),
    S3_ACCESS_KEY_ID: z.string().trim().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().trim().min(1).optional(),
    S3_FORCE_PATH_STYLE: z.stringbool({ error: 'must be true or false' }).optional(),
    S3_PRESIGN_SECONDS: positiveInt.default(900),
    TRANSCRIBE_PROVIDER: z.enum(['none', 'openai-compatible']).default('none'),
    TRANSCRIBE_BASE_URL: httpUrl.optional(),
    TRANSCRIBE_API_KEY: z.string().trim().min(1).optional(),
    TRANSCRIBE_MODEL: z.string().trim().min(1).default('whisper-1'),
    TRANSCRIBE_MAX_BYTES: positiveInt.default(25 * 1024 ** 2),
    TRANSCRIBE_TIMEOUT_MS: positiveInt.default(10 * 60_000),
    FFMPEG_PATH: z.string().trim().min(1).optional(),
    TRANSCRIBE_CREDITS_PER_MINUTE: z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(0, 'must be 0 or more')
      .default(1),
    SMTP_URL: z
      .url({ error: 'must be an smtp:// or smtps:// URL' })
      .refine((value) => /^smtps?:\/\//.test(value), 'must be an smtp:// or smtps:// URL')
      .optional(),
    MAIL_FROM: z
      .string()
      .trim()
      .min(3, 'must be an address like "Knowledge Hub <hub@example.com>"')
      .optional(),
    ADMIN_EMAILS: emailList.optional(),
    WEBHOOKS_ALLOW_PRIVATE: z.stringbool({ error: 'must be true or false' }).default(false),
    WEBHOOK_TIMEOUT_MS: positiveInt.default(10_000),
    GITHUB_CLIENT_ID: z.string().trim().min(1).optional(),
    GITHUB_CLIENT_SECRET: z.string().trim().min(1).optional(),
    GITHUB_AUTHORIZE_URL: httpUrl.default('https://github.com/login/oauth/authorize'),
    GITHUB_TOKEN_URL: httpUrl.default('https://github.com/login/oauth/access_token'),
    GITHUB_API_URL: httpUrl.default('https://api.github.com'),
    GOOGLE_CLIENT_ID: z.string().trim().min(1).optional(),
    GOOGLE_CLIENT_SECRET: z.string().trim().min(1).optional(),
    GOOGLE_AUTHORIZE_URL: httpUrl.default('https://accounts.google.com/o/oauth2/v2/auth'),
    GOOGLE_TOKEN_URL: httpUrl.default('https://oauth2.googleapis.com/token'),
    GOOGLE_USERINFO_URL: httpUrl.default('https://openidconnect.googleapis.com/v1/userinfo'),
  })
  .superRefine((env, ctx) => {
    const required = (keys: ReadonlyArray<keyof typeof env>, when: string) => {
      for (const key of keys) {
        if (!env[key]) ctx.addIssue({ code: 'custom', path: [key], message: `is required when ${when}` });
      }
    };
    if (env.AI_PROVIDER === 'openai') required(['AI_API_KEY', 'AI_MODEL'], 'AI_PROVIDER is openai');
    if (env.S3_ACCESS_KEY_ID || env.S3_SECRET_ACCESS_KEY)
      required(['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'], 'one S3 key is set');
    if (env.TRANSCRIBE_PROVIDER === 'openai-compatible')
      required(['TRANSCRIBE_BASE_URL'], 'TRANSCRIBE_PROVIDER is openai-compatible');
    if (env.BILLING_PROVIDER === 'stripe') required(STRIPE_KEYS, 'BILLING_PROVIDER is stripe');
  });

const STRIPE_KEYS = [
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'STRIPE_PRICE_PRO_MONTH',
  'STRIPE_PRICE_PRO_YEAR',
  'STRIPE_PRICE_BUSINESS_MONTH',
  'STRIPE_PRICE_BUSINESS_YEAR',
] as const;

export type Config = {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  dataDir: string;
  /** Unset means: run the embedded PostgreSQL cluster under `dataDir`. */
  databaseUrl: string | undefined;
  embeddedPgPort: number;
  databasePoolSize: number;
  appUrl: string;
  logLevel: string;
  trustProxy: boolean | number | string[];
  corsOrigins: string[];
  secret: string;
  rateLimitPerMinute: number;
  shutdownTimeoutMs: number;
  /** How often an idle notification stream sends a keep-alive and re-checks the caller's credential. */
  notificationStreamHeartbeatSeconds: number;
  /** AI credits an organization on the free plan may use per calendar month (UTC); paid plans set their own. */
  aiMonthlyCredits: number;
  billing: {
    /** `local`: a ledger in the database, with checkout and portal pages served by the service. */
    provider: 'local' | 'stripe';
    /** Set when the provider is Stripe. */
    stripe: StripeConfig | undefined;
    /** Currency of every plan's prices (ISO 4217, lower case). */
    currency: string;
    /** The free plan's members and videos per organization. */
    freeSeats: number;
    freeVideos: number;
  };
  /** The answer engine: `local` (offline, extractive) or `openai` (any OpenAI-compatible endpoint). */
  ai: {
    provider: 'local' | 'openai';
    /** Charge credits for the local engine too (it is free by default: credits meter paid model calls). */
    meterLocal: boolean;
    baseUrl: string | undefined;
    apiKey: string | undefined;
    model: string | undefined;
    embeddingModel: string | undefined;
    timeoutMs: number;
  };
  /** Recordings: stored under DATA_DIR/media, transcribed by a speech-to-text provider when one is set. */
  media: {
    maxBytes: number;
    /** Set: recordings live in this S3-compatible bucket; unset: under DATA_DIR/media. */
    s3:
      | {
          bucket: string;
          endpoint: string | undefined;
          region: string;
          accessKeyId: string | undefined;
          secretAccessKey: string | undefined;
          /** Bucket in the path (MinIO and most S3-compatible stores), not the host name (AWS). */
          forcePathStyle: boolean;
          presignSeconds: number;
        }
      | undefined;
    transcription:
      | { provider: 'none' }
      | {
          provider: 'openai-compatible';
          baseUrl: string;
          apiKey: string | undefined;
          model: string;
          /** The provider's file size limit: a larger recording is refused with a clear error. */
          maxBytes: number;
          timeoutMs: number;
          /** AI credits per started minute of recording (0: not metered, a provider run in-house). */
          creditsPerMinute: number;
          /** The ffmpeg that splits recordings over `maxBytes`; unset: the one @ffmpeg-installer ships. */
          ffmpegPath: string | undefined;
        };
  };
  /** Unset: mails stay in the outbox table and their text is logged. */
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Platform administrators (beta access approvals). */
  adminEmails: string[];
  oauth: { github: OAuthProviderConfig | undefined; google: OAuthProviderConfig | undefined };
  /** Outgoing webhooks and Slack. */
  integrations: {
    /** Deliver to private, loopback and link-local addresses too (a closed network; the tests). */
    allowPrivateAddresses: boolean;
    /** How long a receiver has to answer one delivery. */
    timeoutMs: number;
  };
  version: string;
};

export type StripeConfig = {
  secretKey: string;
  webhookSecret: string;
  /** Stripe's API (tests point it at a local stand-in). */
  apiUrl: string;
  /** The Stripe price of each paid plan and interval (a price per seat: quantity = seats). */
  prices: Record<'pro' | 'business', Record<'month' | 'year', string>>;
};

/** A provider is enabled when its client id and secret are set; endpoints are configurable for tests and proxies. */
export type OAuthProviderConfig = {
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
  /** GitHub: the REST API base. Google: the OpenID userinfo endpoint. */
  userApiUrl: string;
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const SERVICE_VERSION = '1.0.0';

/** Validates the environment. Throws a ConfigError naming every bad variable. Does no I/O. */
export function parseConfig(env: NodeJS.ProcessEnv): Omit<Config, 'secret'> & { secret: string | undefined } {
  const result = envSchema.safeParse(emptyToUndefined(env));
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const values = result.data;
  const appUrl = (values.APP_URL ?? `http://localhost:${values.PORT}`).replace(/\/$/, '');
  return {
    env: values.NODE_ENV,
    port: values.PORT,
    host: values.HOST,
    dataDir: path.resolve(values.DATA_DIR),
    databaseUrl: values.DATABASE_URL,
    embeddedPgPort: values.EMBEDDED_PG_PORT,
    databasePoolSize: values.DATABASE_POOL_SIZE,
    appUrl,
    logLevel: values.LOG_LEVEL,
    trustProxy: values.TRUST_PROXY,
    corsOrigins: values.CORS_ORIGINS ?? [new URL(appUrl).origin],
    secret: values.SECRET,
    rateLimitPerMinute: values.RATE_LIMIT_PER_MINUTE,
    shutdownTimeoutMs: values.SHUTDOWN_TIMEOUT_MS,
    notificationStreamHeartbeatSeconds: values.NOTIFICATION_STREAM_HEARTBEAT_SECONDS,
    aiMonthlyCredits: values.AI_MONTHLY_CREDITS,
    billing: {
      provider: values.BILLING_PROVIDER,
      stripe:
        values.BILLING_PROVIDER === 'stripe'
          ? {
              secretKey: values.STRIPE_SECRET_KEY as string,
              webhookSecret: values.STRIPE_WEBHOOK_SECRET as string,
              apiUrl: values.STRIPE_API_URL,
              prices: {
                pro: {
                  month: values.STRIPE_PRICE_PRO_MONTH as string,
                  year: values.STRIPE_PRICE_PRO_YEAR as string,
                },
                business: {
                  month: values.STRIPE_PRICE_BUSINESS_MONTH as string,
                  year: values.STRIPE_PRICE_BUSINESS_YEAR as string,
                },
              },
            }
          : undefined,
      currency: values.BILLING_CURRENCY,
      freeSeats: values.FREE_PLAN_SEATS,
      freeVideos: values.FREE_PLAN_VIDEOS,
    },
    ai: {
      provider: values.AI_PROVIDER,
      meterLocal: values.AI_METER_LOCAL,
      baseUrl: values.AI_BASE_URL,
      apiKey: values.AI_API_KEY,
      model: values.AI_MODEL,
      embeddingModel: values.AI_EMBEDDING_MODEL,
      timeoutMs: values.AI_TIMEOUT_MS,
    },
    media: {
      maxBytes: values.MEDIA_MAX_BYTES,
      s3: values.S3_BUCKET
        ? {
            bucket: values.S3_BUCKET,
            endpoint: values.S3_ENDPOINT,
            region: values.S3_REGION,
            accessKeyId: values.S3_ACCESS_KEY_ID,
            secretAccessKey: values.S3_SECRET_ACCESS_KEY,
            forcePathStyle: values.S3_FORCE_PATH_STYLE ?? values.S3_ENDPOINT !== undefined,
            presignSeconds: values.S3_PRESIGN_SECONDS,
          }
        : undefined,
      transcription:
        values.TRANSCRIBE_PROVIDER === 'openai-compatible'
          ? {
              provider: 'openai-compatible',
              baseUrl: (values.TRANSCRIBE_BASE_URL as string).replace(/\/$/, ''),
              apiKey: values.TRANSCRIBE_API_KEY,
              model: values.TRANSCRIBE_MODEL,
              maxBytes: values.TRANSCRIBE_MAX_BYTES,
              timeoutMs: values.TRANSCRIBE_TIMEOUT_MS,
              creditsPerMinute: values.TRANSCRIBE_CREDITS_PER_MINUTE,
              ffmpegPath: values.FFMPEG_PATH,
            }
          : { provider: 'none' },
    },
    smtpUrl: values.SMTP_URL,
    mailFrom: values.MAIL_FROM ?? `Knowledge Hub <no-reply@${new URL(appUrl).hostname}>`,
    adminEmails: values.ADMIN_EMAILS ?? [],
    oauth: {
      github: oauthProvider(values.GITHUB_CLIENT_ID, values.GITHUB_CLIENT_SECRET, {
        authorizeUrl: values.GITHUB_AUTHORIZE_URL,
        tokenUrl: values.GITHUB_TOKEN_URL,
        userApiUrl: values.GITHUB_API_URL.replace(/\/$/, ''),
      }),
      google: oauthProvider(values.GOOGLE_CLIENT_ID, values.GOOGLE_CLIENT_SECRET, {
        authorizeUrl: values.GOOGLE_AUTHORIZE_URL,
        tokenUrl: values.GOOGLE_TOKEN_URL,
        userApiUrl: values.GOOGLE_USERINFO_URL,
      }),
    },
    integrations: {
      allowPrivateAddresses: values.WEBHOOKS_ALLOW_PRIVATE,
      timeoutMs: values.WEBHOOK_TIMEOUT_MS,
    },
    version: SERVICE_VERSION,
  };
}

function oauthProvider(
  clientId: string | undefined,
  clientSecret: string | undefined,
  endpoints: Omit<OAuthProviderConfig, 'clientId' | 'clientSecret'>,
): OAuthProviderConfig | undefined {
  return clientId && clientSecret ? { clientId, clientSecret, ...endpoints } : undefined;
}

/** parseConfig, plus the secret: from `SECRET`, or generated once and kept in `DATA_DIR/secret`. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const config = parseConfig(env);
  return { ...config, secret: config.secret ?? persistedSecret(config.dataDir) };
}

function persistedSecret(dataDir: string): string {
  const file = path.join(dataDir, 'secret');
  mkdirSync(dataDir, { recursive: true });
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(48).toString('base64url');
  // 'wx' refuses to overwrite: if another instance won the race, use what it wrote.
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readFileSync(file, 'utf8').trim();
  }
}

/** An empty variable (`PORT=`) means "not set", as in most twelve-factor services. */
function emptyToUndefined(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(env).map(([key, value]) => [key, value === '' ? undefined : value]),
  );
}
