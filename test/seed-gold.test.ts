import { describe, expect, it } from 'vitest';
import { scoreSeedGold } from '../scripts/eval/gold-score.ts';

/**
 * The local extractor against the hand-labelled gold set of the demo meetings
 * (scripts/seed/gold.ts). The floors are the targets of docs/ai-quality.md: a change to the cues
 * that loses a decision or an action item a person would list fails here, with what was lost.
 */
describe('knowledge extraction on the seed gold set', async () => {
  const report = await scoreSeedGold();

  it('finds at least 90% of the decisions and action items, at least 80% of what it finds being right', () => {
    const lost = [...report.decisions.missed, ...report.actionItems.missed];
    const wrong = [...report.decisions.wrong, ...report.actionItems.wrong];
    expect(report.combined.recall, JSON.stringify(lost, null, 1)).toBeGreaterThanOrEqual(0.9);
    expect(report.combined.precision, JSON.stringify(wrong, null, 1)).toBeGreaterThanOrEqual(0.8);
    expect(report.decisions.recall).toBeGreaterThanOrEqual(0.85);
    expect(report.actionItems.recall).toBeGreaterThanOrEqual(0.85);
  });

  it('names the owner and the due date of the action items it finds', () => {
    expect(report.actionItems.owner.right / report.actionItems.owner.of).toBeGreaterThanOrEqual(0.9);
    expect(report.actionItems.due.right / report.actionItems.due.of).toBeGreaterThanOrEqual(0.9);
  });

  it('finds the questions asked, and never takes talk for one', () => {
    expect(report.questions.recall).toBeGreaterThanOrEqual(0.7);
    expect(report.questions.precision).toBeGreaterThanOrEqual(0.9);
  });

  it('tells the questions a reply answered from those left open', () => {
    const { answered } = report.questions;
    expect(answered.of).toBeGreaterThanOrEqual(18);
    expect(answered.right / answered.of, JSON.stringify(answered.wrong, null, 1)).toBeGreaterThanOrEqual(0.9);
  });

  it('finds both decisions that change between meetings, and no other conflict', () => {
    expect(report.conflicts.missed).toEqual([]);
    expect(report.conflicts.found).toBe(report.conflicts.gold);
  });
});
