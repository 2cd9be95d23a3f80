import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { errorResponseSchema } from '../../http/errors.ts';
import { perEmailAttemptLimit } from '../../http/rate-limit.ts';
import {
  confirmPasswordReset,
  PASSWORD_RESET_MESSAGE,
  RESET_REQUESTED_MESSAGE,
  requestPasswordReset,
} from './password-reset.ts';
import { emailField, messageData, passwordField } from './schemas.ts';

const tags = ['Authentication'];

const resetRequestBody = z.object({ email: emailField });
const resetConfirmBody = z.object({
  token: z
    .string()
    .min(1, 'must not be empty')
    .max(512, 'must be at most 512 characters')
    .meta({ description: 'The token from the reset mail (also the `token` parameter of its link).' }),
  password: passwordField,
});

/** Routes for password reset (POST /auth/reset-password, /auth/reset-password/confirm). */
export const passwordResetRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (
  app,
  { context },
) => {
  app.post(
    '/auth/reset-password',
    {
      config: { rateLimit: perEmailAttemptLimit },
      schema: {
        tags,
        summary:
          'Mail a one-time password reset link (valid 1 hour); the answer is the same for unknown emails',
        body: resetRequestBody,
        response: { 200: messageData, 400: errorResponseSchema, 429: errorResponseSchema },
      },
    },
    async (request) => {
      await requestPasswordReset(context, request.body.email);
      return { success: true as const, data: { message: RESET_REQUESTED_MESSAGE } };
    },
  );

  app.post(
    '/auth/reset-password/confirm',
    {
      config: { rateLimit: perEmailAttemptLimit },
      schema: {
        tags,
        summary: 'Set a new password with a reset token; signs the user out of every session',
        body: resetConfirmBody,
        response: { 200: messageData, 400: errorResponseSchema, 429: errorResponseSchema },
      },
    },
    async (request) => {
      await confirmPasswordReset(context, request.body);
      return { success: true as const, data: { message: PASSWORD_RESET_MESSAGE } };
    },
  );
};
