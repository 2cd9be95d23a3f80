import { readFileSync } from 'node:fs';
import type { QmsumFile } from '../../scripts/seed/qmsum.ts';

/**
 * Real meetings shipped with the tests (QMSum, MIT; test/fixtures/qmsum-meetings): a product
 * design, a research and a committee meeting — one of each kind the evaluations use.
 */
export const QMSUM_MEETINGS = ['IS1004a', 'Bro008', 'education_19'] as const;

export const qmsumFixture = (name: string) =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/qmsum-meetings/${name}.json`, import.meta.url), 'utf8'),
  ) as QmsumFile;
