import { z } from 'zod';

/**
 * The spec's UUID rule: 8-4-4-4-12 hex digits, version 1–8, variant 8/9/a/b, any case,
 * plus the nil and max UUIDs.
 */
export const UUID_PATTERN =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|0{8}-0{4}-0{4}-0{4}-0{12}|f{8}-f{4}-f{4}-f{4}-f{12})$/i;

/** The id the API reference's examples use. */
export const EXAMPLE_ID = '01936c2e-7b1a-7c3d-9e4f-0a1b2c3d4e5f';

export const uuid = () =>
  z
    .string()
    .regex(UUID_PATTERN, 'must be a UUID')
    .overwrite((value) => value.toLowerCase())
    .meta({ format: 'uuid', example: EXAMPLE_ID });

/** Path params `{id}`: a value that is not a UUID answers 404, as for an unknown id. */
export const idParams = z.object({ id: uuid() });
