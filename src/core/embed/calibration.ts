/**
 * What a cosine means depends on the model: e5 gives texts that have nothing to do with each
 * other 0.7 to 0.9, bge-m3 far less. A fixed floor therefore tells nothing; how far a card stands
 * above the rest of the vault for this prompt does. Measured per vault and model at index time:
 * a set of generic prompts that ask about no vault in particular (the background) is compared
 * with every card, which gives how widely a prompt's cosines spread over the vault's cards (the
 * spread), and the mean card (the centroid), with which the hook estimates, from one dot product,
 * what this prompt's cosine with a card of this vault is on average.
 *
 * A card's stand-out is then its cosine less that average, in spreads: 3 means three spreads above
 * what the prompt scores against the vault's cards in general. It is the same measure whatever
 * the model, and the gate is set in it (see fuseSemantic in recall/recall.ts).
 */

import { cosine, type Quantized } from "./quantized";

/**
 * The background: requests a person makes of Claude Code that ask nothing of any particular
 * vault, in the languages the vaults are written in. Asked for as questions.
 */
export const BACKGROUND_PROMPTS: readonly string[] = [
  "write a unit test for this function",
  "explain what this regular expression does",
  "rename this variable to something clearer",
  "can you refactor this into smaller functions",
  "add type annotations to this file",
  "what does this error mean",
  "summarize the changes in this diff",
  "fix the failing test",
  "make the button bigger and center it",
  "how do I reverse a list in python",
  "add logging to this handler",
  "update the readme with install steps",
  "why is this loop slow",
  "convert this callback code to async await",
  "write a commit message for these changes",
  "delete the unused imports",
  "sort these items by date, newest first",
  "add a dark mode toggle to the settings page",
  "translate these strings into French",
  "what's the difference between let and const",
  "parse this csv and print the totals",
  "the build is broken, take a look",
  "add pagination to the list endpoint",
  "write a bash script that backs up a folder",
  "bump the dependencies to their latest versions",
  "help me name this function",
  "draw an ascii diagram of this flow",
  "what time zone is the server in",
  "review this pull request",
  "set up a github actions workflow for tests",
  "帮我写一个单元测试",
  "这个报错是什么意思",
  "把这个函数拆成几个小函数",
  "给这个接口加上分页",
  "解释一下这段代码在做什么",
  "帮我把这些文案翻译成英文",
  "优化一下这个查询的性能",
  "写一个脚本批量重命名文件",
  "幫我寫一個單元測試",
  "這個錯誤訊息是什麼意思",
  "把這段程式碼重構一下",
  "幫我加上深色模式",
  "このエラーの意味を教えて",
  "この関数のテストを書いて",
  "このコードをリファクタリングして",
  "READMEにインストール手順を追加して",
  "이 함수에 대한 테스트를 작성해 줘",
  "이 오류가 무슨 뜻이야",
  "escribe una prueba unitaria para esta función",
  "qué significa este error",
  "schreib einen Test für diese Funktion",
  "was bedeutet diese Fehlermeldung",
  "écris un test unitaire pour cette fonction",
  "que veut dire cette erreur",
  "escreva um teste para esta função",
  "что означает эта ошибка",
];

// Fewer cards than this spread too little to measure against: meaning then waits for more.
export const MIN_CALIBRATION_CARDS = 5;

export interface Calibration {
  /** Background prompts it was measured on. */
  prompts: number;
  /** How widely a prompt's cosines spread over the vault's cards: the mean, over the background, of their standard deviation. */
  spread: number;
  /** What the best-piece cosine averages above the centroid's estimate of it, over the background. */
  bias: number;
  /** The mean of the cards' unit vectors (each card's pieces averaged first). */
  centroid: Float32Array;
}

/** A card's vectors as unit Float32 vectors. */
function unit(q: Quantized): Float32Array {
  const out = new Float32Array(q.values.length);
  let norm = 0;
  for (let i = 0; i < out.length; i++) norm += (q.values[i] * q.scale) ** 2;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < out.length; i++) out[i] = (q.values[i] * q.scale) / norm;
  return out;
}

/**
 * The calibration of `cards` (each card's pieces) against `background` (the background prompts'
 * vectors, asked for as questions); undefined when there are too few cards or prompts to measure.
 */
export function calibrate(cards: readonly (readonly Quantized[])[], background: readonly Quantized[]): Calibration | undefined {
  const withVectors = cards.filter((vs) => vs.length > 0);
  if (withVectors.length < MIN_CALIBRATION_CARDS || background.length < 2) return undefined;
  const dim = withVectors[0][0].values.length;
  if (withVectors.some((vs) => vs.some((v) => v.values.length !== dim)) || background.some((b) => b.values.length !== dim)) return undefined;
  const centroid = new Float32Array(dim);
  for (const vs of withVectors) {
    for (const v of vs) {
      const u = unit(v);
      for (let i = 0; i < dim; i++) centroid[i] += u[i] / vs.length / withVectors.length;
    }
  }
  let spread = 0;
  let bias = 0;
  for (const b of background) {
    const sims = withVectors.map((vs) => Math.max(...vs.map((v) => cosine(b, v))));
    const mean = sims.reduce((a, x) => a + x, 0) / sims.length;
    spread += Math.sqrt(sims.reduce((a, x) => a + (x - mean) ** 2, 0) / sims.length);
    bias += mean - meanEstimate(unit(b), centroid, 0);
  }
  spread /= background.length;
  bias /= background.length;
  // Cards that are all one text spread nothing: no prompt can stand out among them.
  if (!(spread > 1e-6) || !Number.isFinite(bias)) return undefined;
  return { prompts: background.length, spread, bias, centroid };
}

/** What `query`'s cosine with a card of the vault is on average: its dot with the centroid, plus the bias. */
export function meanEstimate(query: Float32Array, centroid: Float32Array, bias: number): number {
  let dot = 0;
  let norm = 0;
  for (let i = 0; i < query.length; i++) {
    dot += query[i] * centroid[i];
    norm += query[i] * query[i];
  }
  return dot / (Math.sqrt(norm) || 1) + bias;
}

/** Each cosine as a stand-out: how many spreads it lies above the prompt's average over the vault's cards. */
export function standOuts(cos: ReadonlyMap<number, number>, query: Float32Array, c: Pick<Calibration, "centroid" | "bias" | "spread">): Map<number, number> {
  const mean = meanEstimate(query, c.centroid, c.bias);
  const out = new Map<number, number>();
  for (const [id, x] of cos) out.set(id, (x - mean) / c.spread);
  return out;
}

/** The calibration in a few words, for the line `index` and `embed` end with. */
export function describeCalibration(c: Calibration | undefined, cards: number): string {
  if (!c)
    return cards < MIN_CALIBRATION_CARDS
      ? `not calibrated: ${cards} cards with vectors, at least ${MIN_CALIBRATION_CARDS} are needed; meaning waits`
      : "not calibrated: the background prompts have no vectors yet; meaning waits";
  return `calibrated on ${c.prompts} background prompts (a prompt's cosines spread ${c.spread.toFixed(4)} over the cards)`;
}
