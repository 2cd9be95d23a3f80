import { expect } from 'vitest';

/** Matches a timestamp as the API serialises it (ISO 8601, milliseconds, UTC). */
export const isoDate = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
