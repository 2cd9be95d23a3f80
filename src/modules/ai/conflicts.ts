import { eq, or } from 'drizzle-orm';
import { v5 as uuidv5 } from 'uuid';
import type { AppContext } from '../../context.ts';
import { knowledgeItems } from '../../db/schema/index.ts';
import type { AuthUser } from '../auth/sessions.ts';
import { findDisagreements, readableSubject, type Statement, type Verdict } from './conflicts-rules.ts';
import { liveItems } from './gaps.ts';
import type { ConflictsQuery } from './gaps-schemas.ts';
import { resolveAiScope } from './scope.ts';

/** Statements compared per request: the most recent, so that a large organization stays fast. */
const MAX_STATEMENTS = 2000;
const MAX_CONFLICTS = 100;
/** Statements shown per conflict: the latest ones. */
const MAX_PER_CONFLICT = 10;
const NAMESPACE = '9b4d2c71-0e5a-4f83-b6d1-5c7e9a2f3b84';

type Said = Statement & { videoTitle: string; start: number; speaker: string | null };

export type Conflict = {
  id: string;
  subject: string;
  kind: Verdict['kind'];
  confidence: number;
  statements: {
    text: string;
    videoId: string;
    videoTitle: string;
    start: number;
    speaker: string | null;
    date: Date;
  }[];
};

/** Decisions, and the answers to questions (about the question's subject), oldest first. */
async function statementsOf(context: AppContext, organizationId: string, since: Date): Promise<Said[]> {
  const rows = await liveItems(context.db, organizationId, {
    since,
    kinds: ['decision', 'question'],
    limit: MAX_STATEMENTS,
    where: or(eq(knowledgeItems.kind, 'decision'), eq(knowledgeItems.answered, true)),
  });
  return rows
    .flatMap((row): Said[] => {
      const base = { id: row.id, videoId: row.videoId, videoTitle: row.videoTitle, date: row.date };
      if (row.kind === 'decision') {
        return [{ ...base, text: row.text, subject: row.subject, start: row.start, speaker: row.speaker }];
      }
      if (!row.answer) return [];
      const { text, start, speaker } = row.answer;
      return [{ ...base, text, subject: row.subject, start, speaker }];
    })
    .sort((a, b) => a.date.getTime() - b.date.getTime() || a.start - b.start);
}

/**
 * `GET /ai/gaps/conflicts`: statements of the organization's live meetings that disagree. Pairs
 * that disagree are joined into one conflict when they share a statement (March → April → May is
 * one conflict of three statements): a contradiction if any pair contradicts, else superseded.
 * Reads knowledge extraction already paid for: no credits.
 */
export async function listConflicts(context: AppContext, user: AuthUser, query: ConflictsQuery) {
  const { organizationId } = await resolveAiScope(context.db, user, query, 'querystring');
  const since = new Date(context.clock.now().getTime() - query.days * 86_400_000);
  const statements = await statementsOf(context, organizationId, since);
  const parent = statements.map((_, index) => index);
  const root = (index: number): number => {
    while (parent[index] !== index) index = parent[index] as number;
    return index;
  };
  const verdicts = findDisagreements(statements);
  for (const { earlier, later } of verdicts) parent[root(earlier)] = root(later);
  const groups = new Map<number, typeof verdicts>();
  for (const found of verdicts) {
    const group = groups.get(root(found.later));
    if (group) group.push(found);
    else groups.set(root(found.later), [found]);
  }
  const conflicts: Conflict[] = [...groups.values()].map((pairs) => {
    const members = [...new Set(pairs.flatMap(({ earlier, later }) => [earlier, later]))]
      .sort((a, b) => a - b)
      .map((index) => statements[index] as Said);
    const best = pairs.reduce((top, pair) => (pair.verdict.confidence > top.verdict.confidence ? pair : top));
    const texts = [statements[best.later]?.text ?? '', statements[best.earlier]?.text ?? ''];
    return {
      id: uuidv5(
        `${organizationId}:${members
          .map((member) => member.id)
          .sort()
          .join(',')}`,
        NAMESPACE,
      ),
      subject: readableSubject(best.verdict.shared, texts),
      kind: pairs.some(({ verdict }) => verdict.kind === 'contradiction') ? 'contradiction' : 'superseded',
      confidence: best.verdict.confidence,
      statements: members
        .slice(-MAX_PER_CONFLICT)
        .map(({ text, videoId, videoTitle, start, speaker, date }) => ({
          text,
          videoId,
          videoTitle,
          start,
          speaker,
          date,
        })),
    };
  });
  const lastSaid = (conflict: Conflict) =>
    conflict.statements[conflict.statements.length - 1]?.date.getTime() ?? 0;
  return {
    data: conflicts
      .sort((a, b) => lastSaid(b) - lastSaid(a) || b.confidence - a.confidence || a.id.localeCompare(b.id))
      .slice(0, MAX_CONFLICTS),
  };
}
