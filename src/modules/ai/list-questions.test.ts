import { describe, expect, it } from 'vitest';
import { changedAfterMatter, heldWindow, knowledgeListQuestion, statusMatter } from './list-questions.ts';

/** A Friday. */
const NOW = new Date('2026-11-27T12:00:00Z');
const day = (iso: string) => new Date(`${iso}T00:00:00Z`);

describe('questions that ask for a list of decisions, open questions or action items', () => {
  it.each([
    ['What did we decide?', 'decision'],
    ['What did the team decide?', 'decision'],
    ['Which decisions were made?', 'decision'],
    ['What are the open questions?', 'question'],
    ['Which questions are still unanswered?', 'question'],
    ["What's still pending: any open questions?", 'question'],
    ['What are the action items?', 'action_item'],
    ['Any next steps from our meetings?', 'action_item'],
  ])('reads %s', (question, kind) => {
    expect(knowledgeListQuestion(question, NOW)).toEqual({ kind, window: null, matter: null });
  });

  it.each([
    ['What are the action items for the job queue?', 'action_item', 'the job queue'],
    ['Any next steps on SAML?', 'action_item', 'SAML'],
    ['What are the open questions about staging?', 'question', 'staging'],
    ['What are the next steps after the outage?', 'action_item', 'the outage'],
  ])('reads %s as a list about a matter', (question, kind, matter) => {
    expect(knowledgeListQuestion(question, NOW)).toEqual({ kind, window: null, matter });
  });

  it.each([
    'What did we decide about the checklist?',
    'What was decided in the last sync?',
    'Why did we decide that?',
    'Who decided?',
    'What are my action items?',
    'How did the design review go?',
    'What questions did Marketing ask about the battery?',
    // Decisions about a matter are told with what changed them (retrieval), and a "task" may be one.
    'Which decisions were made about pricing?',
    'What did the group discuss about pricing and individual task assignment?',
  ])('leaves %s to what answers a matter or a meeting', (question) => {
    expect(knowledgeListQuestion(question, NOW)).toBeNull();
  });

  it('reads the days a question names, as of now, in UTC', () => {
    const window = (question: string) => {
      const found = heldWindow(question, NOW);
      return found && { from: found.from, to: found.to, said: found.said };
    };
    expect(window('decisions last week')).toEqual({
      from: day('2026-11-16'),
      to: day('2026-11-23'),
      said: 'last week',
    });
    expect(window('decisions this week')).toEqual({
      from: day('2026-11-23'),
      to: day('2026-11-28'),
      said: 'this week',
    });
    expect(window('in the last two weeks')).toEqual({
      from: day('2026-11-14'),
      to: day('2026-11-28'),
      said: 'in the last two weeks',
    });
    expect(window('decided yesterday')).toEqual({
      from: day('2026-11-26'),
      to: day('2026-11-27'),
      said: 'yesterday',
    });
    expect(window('decisions last month')).toEqual({
      from: day('2026-10-01'),
      to: day('2026-11-01'),
      said: 'last month',
    });
    // A month or a day without a year is the latest up to now.
    expect(window('questions from January')).toEqual({
      from: day('2026-01-01'),
      to: day('2026-02-01'),
      said: 'in January',
    });
    expect(window('decided on December 3')).toEqual({
      from: day('2025-12-03'),
      to: day('2025-12-04'),
      said: 'on December 3',
    });
    expect(window('decisions since January 12')).toEqual({
      from: day('2026-01-12'),
      to: day('2026-11-28'),
      said: 'since January 12',
    });
    expect(window('what did we decide')).toBeNull();
    // Days counted from now are spelled out in an answer; days named are not.
    expect(heldWindow('decisions last week', NOW)?.relative).toBe(true);
    expect(heldWindow('decisions in January', NOW)?.relative).toBe(false);
  });

  it('takes a window as part of the list question, and nothing else with it', () => {
    expect(knowledgeListQuestion('What decisions were made last week?', NOW)).toMatchObject({
      kind: 'decision',
      window: { said: 'last week' },
    });
    expect(knowledgeListQuestion('List all decisions since January 12', NOW)).toMatchObject({
      kind: 'decision',
      window: { said: 'since January 12' },
    });
    expect(knowledgeListQuestion('What did we decide about pricing in January?', NOW)).toBeNull();
  });

  it.each([
    ["What's the status of search v2?", 'search v2'],
    ['What is the latest on the night batch?', 'the night batch'],
    ['Where are we with the checklist', 'the checklist'],
    ['Any update on SAML?', 'SAML'],
    ['Give me an update on the Northwind renewal.', 'the Northwind renewal'],
    ['What happened with the onboarding checklist?', 'the onboarding checklist'],
    ["What's going on with the night batch?", 'the night batch'],
    ['What happened at the design review?', null],
    ['What did we decide about search v2?', null],
    ['Status page: who updates it?', null],
  ])('reads the matter of a status question: %s', (question, matter) => {
    expect(statusMatter(question)).toBe(matter);
  });

  it.each([
    ['What changed after the outage?', 'the outage'],
    ['What did we change following the incident on January 14?', 'the incident on January 14'],
    ['What has changed after the design review', 'the design review'],
    // How a decision changed is retrieval's (answer-timeline.ts); "since" names days, not a matter.
    ['What changed about search v2?', null],
    ['What changed since the design review?', null],
    ['Why did search v2 change after the load test?', null],
  ])('reads the event a question asks the consequences of: %s', (question, matter) => {
    expect(changedAfterMatter(question)).toBe(matter);
  });
});
