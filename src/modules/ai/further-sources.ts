import type { Source } from './engine.ts';
import type { Sentence } from './excerpts.ts';

/**
 * Which sources an answer quotes after its lead (local-engine.ts); the others are cited after
 * "See also". Each rule keeps the answer on what was asked once a lead has answered it.
 */
export function furtherSources(input: {
  /** Every sentence of the sources. */
  sentences: Sentence[];
  /** A source's sentences. */
  own: (source: Source) => Sentence[];
  /** The question's stemmed words. */
  asked: string[];
  /** Each speaker's name → the stemmed words of it. */
  speakerWords: Map<string, string[]>;
  /** Each meeting title → its stemmed words. */
  titleWords: Map<string, Set<string>>;
  /** A source's sentence that best answers. */
  best: (source: Source) => Sentence | undefined;
  /** For a question of a kind: which sentences answer it, and the question's words but the kind's. */
  kind?: { by: (sentence: Sentence) => boolean; about: Set<string> };
}) {
  const { sentences, own, asked, speakerWords, titleWords, best, kind } = input;
  const inMeeting = (videoId: string) => sentences.filter((sentence) => sentence.source.videoId === videoId);
  // What a meeting's title says, or whoever speaks, counts as said.
  const saysAll = (said: Sentence[]) => {
    const words = new Set(
      said.flatMap((sentence) => [
        ...sentence.lexemes,
        ...(speakerWords.get(sentence.speaker ?? '') ?? []),
        ...(titleWords.get(sentence.source.videoTitle) ?? []),
      ]),
    );
    return asked.every((lexeme) => words.has(lexeme));
  };

  return {
    /**
     * Whether `source` may be quoted after `lead`. Not when the lead's meeting says every word of
     * the question and it, from another meeting, does not: "Does Northwind need SAML?", answered
     * from the Northwind call, is not followed by another meeting's "a maintenance window for the
     * Northwind reindex". Nor when its best sentence says only what its meeting's title says
     * ("This is the retrospective for the search outage on January 14").
     */
    quoted(lead: Sentence, source: Source): boolean {
      if (
        source.videoId !== lead.source.videoId &&
        saysAll(inMeeting(lead.source.videoId)) &&
        !saysAll(own(source))
      )
        return false;
      const bestOf = best(source);
      const title = titleWords.get(source.videoTitle);
      return !bestOf || !title || [...bestOf.lexemes].some((lexeme) => !title.has(lexeme));
    },
    /**
     * Once a fact is stated, the sentences of another source that state one too about the matter as
     * the lead names it: after "Aisha, can you write that into the release checklist? Yes, by
     * January 19", not "Priya owns the redesign" of the onboarding checklist, nor "Daniel owns the
     * search v2 release".
     */
    statingAsFully(lead: Sentence) {
      const named = [...(kind?.about ?? [])].filter((lexeme) => lead.lexemes.has(lexeme));
      return (sentence: Sentence) =>
        kind?.by(sentence) === true && named.every((lexeme) => sentence.lexemes.has(lexeme));
    },
  };
}
