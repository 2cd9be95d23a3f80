import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { paginated, paginationQuery } from '../../http/pagination.ts';
import { timestamp } from '../../http/timestamps.ts';
import { emailField } from '../auth/schemas.ts';

export const BETA_ACCESS_STATUSES = ['pending', 'approved'] as const;
export type BetaAccessStatus = (typeof BETA_ACCESS_STATUSES)[number];

const optionalText = (max: number) =>
  z.string().trim().max(max, `must be at most ${max} characters`).optional();

export const betaAccessBody = z.object({
  email: emailField,
  name: optionalText(100),
  company: optionalText(200),
  useCase: optionalText(2000).meta({ description: 'What the requester wants to use Knowledge Hub for.' }),
});

export type BetaAccessInput = z.infer<typeof betaAccessBody>;

const status = z.enum(BETA_ACCESS_STATUSES);

/** What an anonymous requester gets back: nothing they did not send, except the id and status. */
export const betaAccessReceipt = z
  .object({ id: uuid(), email: z.string(), status, createdAt: timestamp() })
  .meta({ id: 'BetaAccessReceipt' });

/** What platform administrators see. */
export const betaAccessRequest = z
  .object({
    id: uuid(),
    email: z.string(),
    name: z.string().nullable(),
    company: z.string().nullable(),
    useCase: z.string().nullable(),
    status,
    createdAt: timestamp(),
    approvedAt: timestamp().nullable(),
  })
  .meta({ id: 'BetaAccessRequest' });

export const betaAccessListQuery = paginationQuery.extend({
  status: status.optional().meta({ description: 'Only requests in this status.' }),
});

export type BetaAccessListQuery = z.infer<typeof betaAccessListQuery>;

export const betaAccessList = paginated(betaAccessRequest);
