import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isForeignKeyViolation, isTransactionRollback } from '../db/errors.ts';

/**
 * The one error type of the service. Anything thrown that is not an AppError (or one of
 * Fastify's own client errors) is an unexpected failure and becomes a 500 with no internals.
 */
export class AppError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    statusCode: number,
    code: string,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.statusCode = statusCode;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }
}

export type ErrorDetail = { path: string; message: string };

export const errors = {
  badRequest: (message: string, code = 'BAD_REQUEST') => new AppError(400, code, message),
  validation: (details: ErrorDetail[]) =>
    new AppError(400, 'VALIDATION_ERROR', 'Invalid request', { details }),
  unauthorized: (message = 'Authentication required', code = 'UNAUTHORIZED') =>
    new AppError(401, code, message),
  forbidden: (message = 'You do not have access to this resource', code = 'FORBIDDEN') =>
    new AppError(403, code, message),
  notFound: (message = 'Not found', code = 'NOT_FOUND') => new AppError(404, code, message),
  conflict: (message: string, code = 'CONFLICT') => new AppError(409, code, message),
  tooManyRequests: (message: string, code = 'RATE_LIMITED') => new AppError(429, code, message),
};

export const errorResponseSchema = z
  .object({
    success: z.literal(false),
    error: z.string().meta({ description: 'A human-readable message.' }),
    code: z.string().meta({ description: 'A stable machine-readable code, e.g. VALIDATION_ERROR.' }),
    details: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'Every failing field of a 400 validation error.' }),
  })
  .meta({ id: 'Error' });

export type ErrorBody = z.infer<typeof errorResponseSchema>;

/** Route `response` entries for error statuses: `{...errorResponses(400, 401, 404)}`. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, errorResponseSchema]));

/** Fastify's own client errors (body parsing, content type, size) and the shape we give each. */
const fastifyClientErrors: Record<string, { status: number; code: string; message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: {
    status: 400,
    code: 'INVALID_JSON',
    message: 'Malformed JSON in request body',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    status: 400,
    code: 'INVALID_JSON',
    message: 'Body cannot be empty when content-type is application/json',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    code: 'BAD_REQUEST',
    message: 'Content-Length does not match the body',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: 'Request body is too large',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Unsupported content type; send application/json',
  },
  FST_ERR_CTP_INVALID_TYPE: { status: 400, code: 'BAD_REQUEST', message: 'Invalid Content-Type header' },
  FST_ERR_BAD_URL: { status: 404, code: 'NOT_FOUND', message: 'Not found' },
  // A path id longer than any id: it names nothing, as a malformed id does.
  FST_ERR_MAX_PARAM_LENGTH: { status: 404, code: 'NOT_FOUND', message: 'Not found' },
};

/** What Node's HTTP parser refuses, by its error code; anything else is a plain bad request. */
const parserErrors: Record<string, { status: number; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'HEADERS_TOO_LARGE',
    message: 'The request line and headers are too large (16 KiB at most)',
  },
  HPE_URI_TOO_LONG: { status: 414, code: 'URI_TOO_LONG', message: 'The request URL is too long' },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    code: 'REQUEST_TIMEOUT',
    message: 'The request was not received in time',
  },
};
const BAD_REQUEST = { status: 400, code: 'BAD_REQUEST', message: 'Malformed HTTP request' };

/**
 * Fastify's `clientErrorHandler`: answers a request Node could not parse (control characters in a
 * header, headers over the limit) in the error shape, then closes the connection.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex) {
  if (!socket.writable) return;
  const { status, code, message } = (error.code && parserErrors[error.code]) || BAD_REQUEST;
  const body = JSON.stringify({ success: false, error: message, code } satisfies ErrorBody);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** The one error shape of an AppError. */
export function errorBodyOf(error: AppError): ErrorBody {
  const body: ErrorBody = { success: false, error: error.message, code: error.code };
  if (error.details) body.details = error.details;
  return body;
}

export function sendError(reply: FastifyReply, error: AppError) {
  if (error.headers) reply.headers(error.headers);
  return reply.status(error.statusCode).type('application/json; charset=utf-8').send(errorBodyOf(error));
}

export function toAppError(error: FastifyError, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    // An id in the path that is not a UUID cannot name anything: answer as for an unknown id.
    if (error.validationContext === 'params') return errors.notFound();
    const context = error.validationContext ?? 'body';
    return errors.validation(
      error.validation.map((issue) => ({
        path: [context, ...issue.instancePath.split('/').filter(Boolean)].join('.'),
        message: issue.message ?? 'Invalid value',
      })),
    );
  }
  const known = error.code ? fastifyClientErrors[error.code] : undefined;
  if (known) return new AppError(known.status, known.code, known.message);
  // A deadlock or serialization failure that outlasted its service's retries: nothing in the
  // request is wrong, and the same request a moment later normally succeeds.
  if (isTransactionRollback(error)) {
    request.log.warn({ err: error }, 'transaction rolled back by the database');
    return new AppError(
      503,
      'SERVICE_UNAVAILABLE',
      'The request met other work on the same records; try again',
      {
        headers: { 'retry-after': '1' },
      },
    );
  }
  // A parent (an organization, a video) deleted by another request after this one read it.
  if (isForeignKeyViolation(error)) {
    request.log.warn({ err: error }, 'a write referred to a row deleted meanwhile');
    return errors.conflict('Something this request refers to was deleted while it ran');
  }
  if (isResponseSerializationError(error)) {
    request.log.error({ err: error, issues: error.cause.issues }, 'response does not match its schema');
  } else {
    request.log.error({ err: error }, 'unexpected error');
  }
  return new AppError(500, 'INTERNAL_ERROR', 'Internal server error');
}

export const routeNotFound = (request: FastifyRequest) =>
  errors.notFound(`Route ${request.method} ${request.url.split('?')[0]} not found`);

/** A field left out reads "Required", not "Invalid input: expected string, received undefined". */
z.config({
  customError: (issue) =>
    issue.code === 'invalid_type' && issue.input === undefined ? 'Required' : undefined,
});

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) =>
    // An unknown route is a 404 even when its body could not be parsed.
    sendError(reply, request.is404 ? routeNotFound(request) : toAppError(error, request)),
  );
  app.setNotFoundHandler((request, reply) => sendError(reply, routeNotFound(request)));
}
