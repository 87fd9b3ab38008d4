/** Recognises prompts that acknowledge rather than ask: "ok continue", "好的，繼續", "great, that worked". */

import { ACKNOWLEDGEMENT_WORDS } from "./stopwords";

// Openers in Chinese and Japanese, matched at the start of the prompt since they are not words
// the tokenizer keeps apart.
const CJK_OPENERS = [
  ...["好的", "好吧", "好", "收到", "谢谢", "謝謝", "多谢", "多謝", "可以", "行", "嗯", "对", "對", "没问题", "沒問題", "不用了", "了解", "明白", "ok"],
  ...["早上好", "你好", "辛苦了", "辛苦啦"],
  ...["はい", "ありがとう", "了解", "承知", "なるほど", "おはよう", "こんにちは", "こんばんは", "お疲れ", "おつかれ", "よろしく", "大丈夫", "いいね"],
];

// English openers of more than one word, each of whose words alone may start a real question
// ("never", "got", "all").
const PHRASE_OPENERS = ["never mind", "got it", "makes sense", "all good"];

// A short line that ends by thanking is a closing remark, whatever it mentions on the way
// ("ファイル名はそれでいいと思う、ありがとう", "the link opens now, thanks!"); a question ends with a question.
const CLOSING =
  /(?:thanks?(?: you| a lot| so much)?|thx|cheers|谢谢(?:你|您)?|謝謝(?:你|您)?|多谢|多謝|ありがと(?:う|うございます|うございました)?|どうも|助かった(?:よ|わ)?|助かりました|サンキュー|気にしないで(?:ください)?|不用了|没事了|沒事了|never mind)[\s!！。.~〜…]*$/;
const CLOSING_MAX_CHARS = 80;
// ...unless it opens as a question does.
const QUESTION_OPENER =
  /^(?:why|how|what|where|when|which|who|can|could|should|is|are|do|does|did|怎么|怎樣|如何|为什么|為什麼|什么|什麼|哪|なぜ|どう|どこ|何)/;

/** Whether the prompt opens with an acknowledgement word, or is a short line that closes with thanks. */
export function isAcknowledgement(prompt: string): boolean {
  const p = prompt.slice(0, 2000).trim().toLowerCase();
  if (p.length <= CLOSING_MAX_CHARS && !/[?？]/.test(p) && !QUESTION_OPENER.test(p) && CLOSING.test(p)) return true;
  const first = /^[a-z']+/.exec(p)?.[0];
  if (first !== undefined) return ACKNOWLEDGEMENT_WORDS.has(first) || PHRASE_OPENERS.some((o) => p.startsWith(o) && !/[a-z]/.test(p.charAt(o.length)));
  return CJK_OPENERS.some((o) => p.startsWith(o));
}
