import { z } from 'zod';
import { CADENCES } from '../../db/schema/index.ts';
import { uuid } from '../../http/ids.ts';
import { timestamp } from '../../http/timestamps.ts';
import { nameField } from '../auth/schemas.ts';
import { descriptionField, someField } from '../channels/schemas.ts';

export { organizationListQuery } from '../channels/schemas.ts';

const cadenceField = z.enum(CADENCES).meta({ description: 'How often the meeting recurs.' });

export const createSeriesBody = z.object({
  organizationId: uuid(),
  name: nameField,
  description: descriptionField.nullable().optional(),
  cadence: cadenceField.default('adhoc'),
});

export const updateSeriesBody = z
  .object({
    name: nameField.optional(),
    description: descriptionField.nullable().optional().meta({ description: 'null clears it.' }),
    cadence: cadenceField.optional(),
  })
  .refine(someField, 'must change name, description or cadence');

export const seriesSchema = z
  .object({
    id: uuid(),
    organizationId: uuid(),
    name: z.string(),
    description: z.string().nullable(),
    cadence: cadenceField,
    createdBy: uuid().nullable().meta({ description: 'The creating user; null once that user is deleted.' }),
    videoCount: z.number().int().meta({ description: 'Occurrences (videos), deleted ones excluded.' }),
    lastRecordedAt: timestamp()
      .nullable()
      .meta({ description: 'When the latest occurrence was recorded; null when none has a date.' }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'Series' });

export type SeriesView = z.output<typeof seriesSchema>;
