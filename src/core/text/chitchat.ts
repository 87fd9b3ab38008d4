/** Recognises prompts that acknowledge rather than ask: "ok continue", "好的，繼續", "great, that worked". */

import { ACKNOWLEDGEMENT_WORDS } from "./stopwords";

// Openers in Chinese and Japanese, matched at the start of the prompt since they are not words
// the tokenizer keeps apart.
const CJK_OPENERS = [
  ...["好的", "好吧", "好", "收到", "谢谢", "謝謝", "多谢", "多謝", "可以", "行", "嗯", "对", "對", "没问题", "沒問題", "不用了", "了解", "明白", "ok"],
  ...["早上好", "你好", "辛苦了", "辛苦啦"],
  ...["はい", "ありがとう", "了解", "承知", "なるほど", "おはよう", "こんにちは", "こんばんは", "お疲れ", "おつかれ", "よろしく", "大丈夫"],
];

// English openers of more than one word, each of whose words alone may start a real question
// ("never", "got", "all").
const PHRASE_OPENERS = ["never mind", "got it", "makes sense", "all good"];

/** Whether the prompt opens with an acknowledgement word. */
export function isAcknowledgement(prompt: string): boolean {
  const p = prompt.trim().toLowerCase();
  const first = /^[a-z']+/.exec(p)?.[0];
  if (first !== undefined) return ACKNOWLEDGEMENT_WORDS.has(first) || PHRASE_OPENERS.some((o) => p.startsWith(o) && !/[a-z]/.test(p.charAt(o.length)));
  return CJK_OPENERS.some((o) => p.startsWith(o));
}
