/** Suggests existing cards similar to a queued conversation, with MiniSearch over name, description and body. */

import MiniSearch from "minisearch";
import { tokenize } from "../text/tokenizer";

export interface SimilarCardInput {
  path: string;
  name: string;
  description: string;
  body: string;
}

export interface SimilarCard {
  path: string;
  name: string;
  score: number;
}

// A card's name and description say what it is about; its body adds detail.
const BOOST = { name: 3, description: 2, body: 1 };
// Long conversations would make every card look similar; their first words set the subject.
const MAX_QUERY_CHARS = 4000;

export class SimilarCards {
  private readonly search: MiniSearch<SimilarCardInput>;

  constructor(cards: readonly SimilarCardInput[] = []) {
    this.search = new MiniSearch<SimilarCardInput>({
      idField: "path",
      fields: ["name", "description", "body"],
      storeFields: ["name"],
      // The one tokenizer, so Chinese is cut into the same bigrams as for recall.
      tokenize: (text) => tokenize(text),
      processTerm: (term) => term,
      searchOptions: { boost: BOOST, combineWith: "OR" },
    });
    this.search.addAll(cards);
  }

  /** One more card, so that a large vault can be read in slices. */
  add(card: SimilarCardInput): void {
    this.search.add(card);
  }

  suggest(text: string, limit = 5): SimilarCard[] {
    return this.search
      .search(text.slice(0, MAX_QUERY_CHARS))
      .slice(0, limit)
      .map((r) => ({ path: String(r.id), name: String((r as { name?: unknown }).name ?? r.id), score: r.score }));
  }
}
