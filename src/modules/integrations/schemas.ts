import { z } from 'zod';
import { deliveryStatuses, integrationKinds } from '../../db/schema/integrations.ts';
import { uuid } from '../../http/ids.ts';
import { paginated, paginationQuery } from '../../http/pagination.ts';
import { timestamp } from '../../http/timestamps.ts';
import { descriptionField, someField } from '../channels/schemas.ts';
import { INTEGRATION_EVENTS, integrationEventTypes } from './events.ts';

const eventList = Object.entries(INTEGRATION_EVENTS)
  .map(([type, meaning]) => `\`${type}\` (${meaning})`)
  .join(', ');

const events = (options: { slack: boolean }) =>
  z
    .array(z.enum(integrationEventTypes))
    .min(1, 'must name at least one event')
    .max(integrationEventTypes.length)
    .refine((list) => new Set(list).size === list.length, 'must not repeat an event')
    .refine((list) => options.slack || !list.includes('digest.weekly'), 'digest.weekly is for Slack only')
    .meta({ description: `Events to receive: ${eventList}.` });

const destinationUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2048, 'must be at most 2048 characters');

const optionalOrganization = uuid()
  .optional()
  .meta({ description: "Default: the caller's default organization." });

export const organizationQuery = z.object({ organizationId: optionalOrganization });

export const createWebhookBody = z.object({
  organizationId: uuid(),
  url: destinationUrl.meta({
    description:
      'Where events are POSTed. https on a public address, unless WEBHOOKS_ALLOW_PRIVATE=true (then also http and private addresses).',
  }),
  events: events({ slack: false }),
  description: descriptionField.nullable().optional(),
});

export const updateWebhookBody = z
  .object({
    url: destinationUrl.optional(),
    events: events({ slack: false }).optional(),
    description: descriptionField.nullable().optional(),
    enabled: z
      .boolean()
      .optional()
      .meta({ description: 'false pauses deliveries; true re-enables a webhook disabled after failing.' }),
    rotateSecret: z
      .boolean()
      .optional()
      .meta({ description: 'true replaces the signing secret; the answer shows the new one, once.' }),
  })
  .refine(({ rotateSecret, ...rest }) => rotateSecret === true || someField(rest), 'must change something');

export const createSlackBody = z.object({
  organizationId: uuid(),
  webhookUrl: destinationUrl.meta({
    description:
      'A Slack incoming-webhook URL (https://hooks.slack.com/services/…); any Slack-compatible receiver works.',
  }),
  events: events({ slack: true }),
  description: descriptionField.nullable().optional(),
});

export const updateSlackBody = z
  .object({
    webhookUrl: destinationUrl.optional(),
    events: events({ slack: true }).optional(),
    description: descriptionField.nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .refine(someField, 'must change something');

export const integrationSchema = z
  .object({
    id: uuid(),
    organizationId: uuid(),
    kind: z.enum(integrationKinds),
    url: z.string().meta({
      description: "A webhook's URL; for Slack, the incoming-webhook URL with its secret part masked.",
    }),
    events: z.array(z.enum(integrationEventTypes)),
    description: z.string().nullable(),
    enabled: z.boolean(),
    disabledReason: z.string().nullable().meta({
      description: 'Why the service disabled it (three days of failed deliveries); null otherwise.',
    }),
    failingSince: timestamp()
      .nullable()
      .meta({ description: 'Start of the current run of failed deliveries; null after a success.' }),
    createdBy: uuid().nullable(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'Integration' });

export type IntegrationView = z.output<typeof integrationSchema>;

export const webhookWithSecretSchema = integrationSchema
  .extend({
    secret: z.string().meta({
      description:
        'The signing secret (`whsec_…`), shown only in this answer. Verify `x-khub-signature` with it (docs/integrations.md).',
    }),
  })
  .meta({ id: 'WebhookWithSecret' });

export const integrationListSchema = z
  .object({ data: z.array(integrationSchema) })
  .meta({ id: 'IntegrationList' });

export const deliverySchema = z
  .object({
    id: uuid(),
    integrationId: uuid(),
    eventId: uuid().meta({ description: 'The `id` of the body sent: the same on every attempt.' }),
    eventType: z.string(),
    status: z.enum(deliveryStatuses),
    attempts: z.number().int(),
    nextAttemptAt: timestamp().nullable().meta({ description: 'When a pending delivery is tried next.' }),
    lastAttemptAt: timestamp().nullable(),
    lastStatusCode: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The receiver's last HTTP status, if it answered." }),
    lastError: z.string().nullable(),
    deliveredAt: timestamp().nullable(),
    createdAt: timestamp(),
    payload: z
      .record(z.string(), z.unknown())
      .meta({ description: 'The body sent: `{id, type, createdAt, data}`.' }),
  })
  .meta({ id: 'WebhookDelivery' });

export type DeliveryView = z.output<typeof deliverySchema>;

export const deliveryQuery = paginationQuery.extend({
  status: z.enum(deliveryStatuses).optional(),
});

export const deliveryPage = paginated(deliverySchema).meta({ id: 'WebhookDeliveryPage' });

export const deliveryParams = z.object({ id: uuid(), deliveryId: uuid() });
