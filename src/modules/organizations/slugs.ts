import { randomBytes } from 'node:crypto';

/** 3–50 characters of a–z, 0–9 and inner hyphens. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{1,48}[a-z0-9])$/;

/** A readable slug from a name ("Ada's Workspace" → "adas-workspace"), padded when too short. */
export function slugify(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/g, '');
  return base.length >= 3 ? base : `${base || 'org'}-${randomSuffix()}`;
}

export const randomSuffix = () => randomBytes(3).toString('hex');
