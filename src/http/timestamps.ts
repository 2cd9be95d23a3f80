import { z } from 'zod';

/**
 * A timestamp: a Date in the code, an ISO 8601 UTC string on the wire
 * (`2026-11-21T10:00:00.000Z`). Response serialisation encodes; request validation decodes.
 */
export const timestamp = () =>
  z
    .codec(z.iso.datetime({ offset: true }), z.date(), {
      decode: (value) => new Date(value),
      encode: (date) => date.toISOString(),
    })
    .meta({ example: '2026-11-21T10:00:00.000Z' });
