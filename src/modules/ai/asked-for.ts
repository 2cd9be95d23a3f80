import type { Source } from './engine.ts';

/**
 * What a question asks for by name: "What is the success metric for the experiment?" asks for a
 * success metric, and the experiment only says which. The words after "what is the" up to the
 * first word that says of what.
 */
const ASKS_FOR =
  /^what(?:'s| is| was| are| were) the ((?:[\p{L}\d-]+\s+){0,3}?[\p{L}\d-]+?)(?=\s+(?:of|for|in|on|about|with|from|at|to|that|which|who|between|behind|and|when|after|before|during)\b|\s*[?.]?$)/iu;

export const askedFor = (question: string): string => question.trim().match(ASKS_FOR)?.[1] ?? '';

/**
 * `sources` with the first whose best sentence says what the question asks for first, when
 * retrieval's first does not say it: "Success means more workspaces with at least one channel…"
 * answers "What is the success metric for the experiment?", where the stretch that says
 * "experiment" most asks what happens to the workspaces in it.
 */
export function askedForFirst(sources: Source[], saysAskedFor: (source: Source) => boolean): Source[] {
  const [first] = sources;
  if (!first || saysAskedFor(first)) return sources;
  const saying = sources.find(saysAskedFor);
  return saying ? [saying, ...sources.filter((source) => source !== saying)] : sources;
}
