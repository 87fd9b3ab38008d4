/** Words that say nothing about a card's subject, in the languages the tokenizer splits. */

// Why a Set of plain strings: terms are user data, and a Set has no prototype keys that a word
// like "constructor" could collide with.
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all am an and any are aren't as at be because been before being below " +
    "between both but by can cannot could did do does doing don down during each few for from further had has have " +
    "having he her here hers herself him himself his how i if in into is isn it its itself just let me more most my " +
    "myself no nor not now of off on once only or other ought our ours ourselves out over own same she should so " +
    "some such than that the their theirs them themselves then there these they this those through to too under " +
    "until up very was we were what when where which while who whom why will with would you your yours yourself " +
    "yourselves also get got via use using used s t ll ve re d m don doesn didn isn aren wasn weren won wouldn " +
    "shouldn couldn haven hasn hadn"
  ).split(" "),
);

// Chit-chat that carries no subject: "ok continue", "thanks, go ahead". Kept apart from the stop
// words so that the chit-chat check can ask "was every word one of these?".
export const ACKNOWLEDGEMENT_WORDS: ReadonlySet<string> = new Set(
  (
    "ok okay k yes yeah yep yup no nope sure fine great good nice cool thanks thank thx ty please pls go ahead " +
    "continue proceed next done right alright agreed lgtm perfect awesome hi hello hey bye sounds looks " +
    "excellent wonderful brilliant amazing works worked fixed nevermind sweet hmm"
  ).split(" "),
);

// Particles that glue words together: a bigram that holds one straddles two words ("我的文件" →
// "的文") and says nothing, so it is dropped whole.
export const CJK_PARTICLES: ReadonlySet<string> = new Set([..."的了吗嗎呢吧啊呀嘛么麼之をにはがでとへやの"]);

// CJK bigrams (and lone characters) that are grammar, not subject. Both scripts, since one vault
// often holds simplified and traditional text.
export const CJK_STOP_TERMS: ReadonlySet<string> = new Set(
  (
    "的 了 是 在 和 与 與 或 也 就 都 而 及 着 著 吗 嗎 呢 吧 啊 呀 嘛 么 麼 我 你 他 她 它 们 們 这 這 那 哪 " +
    "一个 一個 这个 這個 那个 那個 什么 什麼 怎么 怎麼 怎样 怎樣 如何 为什 為什 为何 為何 可以 可能 能够 能夠 " +
    "我们 我們 你们 你們 他们 他們 它们 它們 就是 还是 還是 但是 因为 因為 所以 如果 然后 然後 已经 已經 " +
    "一下 一些 这些 這些 那些 不是 没有 沒有 需要 应该 應該 是否 是不 不要 的话 的話 请问 請問 请帮 請幫 帮我 幫我 " +
    "好的 好吧 继续 繼續 谢谢 謝謝 多谢 多謝 收到 明白 知道 了解 可以了 行吧 对的 對的 没问 沒問 " +
    "の に は を が で と も へ や か な た て だ です ます する した して ない この その あの これ それ あれ " +
    "ください どう なに 何か ありがとう はい いいえ"
  ).split(" "),
);
