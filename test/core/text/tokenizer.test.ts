import { describe, expect, it } from "vitest";
import {
  camelParts,
  DEFAULT_TOKENIZER,
  PLAIN_TOKENIZER,
  termSpans,
  tokenize,
  tokenizeQuery,
  uniqueTerms,
  writtenInCjk,
} from "../../../src/core/text/tokenizer";

describe("tokenize", () => {
  it.each([
    ["Latin words are lower-cased", "Obsidian Vault", ["obsidian", "vault"]],
    ["stop words are dropped", "how do I embed the file", ["embed", "file"]],
    ["lone letters are dropped, digit runs kept", "a b 404 x", ["404"]],
    ["CJK runs become bigrams", "定时任务", ["定时", "时任", "任务"]],
    ["a lone CJK character is a unigram", "用 vite", ["用", "vite"]],
    ["CJK stop bigrams are dropped", "如何备份", ["何备", "备份"]],
    ["bigrams across a particle are dropped", "我的文件", ["文件"]],
    ["mixed script splits at the boundary", "vite部署", ["vite", "部署"]],
    ["Japanese kana runs are bigrams", "ノート", ["ノー", "ート"]],
    ["full-width Latin folds to ASCII", "ＶＩＴＥ", ["vite"]],
    ["punctuation and emoji break words", "fix—fast! 🚀 ok", ["fix", "fast", "ok"]],
    ["accented letters stay in words", "Café déjà", ["café", "déjà"]],
    ["words over 40 characters are noise", "a".repeat(41) + " real", ["real"]],
    ["Cyrillic is a word script", "Заметки", ["заметки"]],
  ])("%s", (_, text, expected) => {
    expect(tokenize(text)).toEqual(expected);
  });

  it("keeps object-prototype words as ordinary terms", () => {
    // A camelCase word also gives its words ("to" and "has", "own" are stop words).
    expect(tokenize("constructor __proto__ toString hasOwnProperty", PLAIN_TOKENIZER)).toEqual([
      "constructor",
      "proto",
      "tostring",
      "string",
      "hasownproperty",
      "property",
    ]);
    expect(tokenize("constructor __proto__ toString hasOwnProperty")).toEqual(["constructor", "proto", "tostr", "string", "hasownproperti", "properti"]);
  });

  it("gives nothing for chit-chat in either language", () => {
    expect(uniqueTerms("好的继续")).toEqual([]);
    expect(uniqueTerms("好的，繼續")).toEqual([]);
  });

  it.each([
    ["hiragana is grammar and goes", "ここまでにしましょう", []],
    ["katakana and kanji runs are cut apart", "ノートのリンクを貼る", ["ノー", "ート", "リン", "ンク", "貼"]],
    ["the prolonged sound mark stays with its katakana", "サーバー設定", ["サー", "ーバ", "バー", "設定"]],
    ["kanji words keep their pairs", "機械学習のノート", ["機械", "械学", "学習", "ノー", "ート"]],
    ["Chinese is untouched", "机器学习的笔记", ["机器", "器学", "学习", "笔记"]],
  ])("Japanese: %s", (_, text, expected) => {
    expect(tokenize(text, { ...DEFAULT_TOKENIZER, foldChinese: false })).toEqual(expected);
  });

  it("cuts Japanese into pairs across scripts when splitKana is off, as the user's rules did", () => {
    expect(tokenize("ノートを", { ...DEFAULT_TOKENIZER, foldChinese: false, splitKana: false })).toEqual(["ノー", "ート"]);
    expect(tokenize("ここまで", PLAIN_TOKENIZER)).toEqual(["ここ", "こま"]);
  });

  it("counts duplicates in tokenize and not in uniqueTerms", () => {
    expect(tokenize("cron cron cron")).toHaveLength(3);
    expect(uniqueTerms("cron cron cron")).toEqual(["cron"]);
  });

  it("handles astral CJK characters as one character", () => {
    expect(tokenize("𠀀𠀁")).toEqual(["𠀀𠀁"]);
  });
});

describe("identifiers", () => {
  it.each([
    ["GeneratedApiClient", ["generated", "api", "client"]],
    ["HTTPServerConfig", ["http", "server", "config"]],
    ["useEffect", ["use", "effect"]],
    ["HTTPServer", []],
    ["JavaScript", []],
    ["iPhone", []],
    ["parseJSONResponse", ["parse", "json", "response"]],
    ["getX", ["get", "x"]],
    ["Hello", []],
    ["HTTP", []],
    ["snake_case", []],
  ])("splits %s by its capitals", (word, parts) => {
    expect(camelParts(word)).toEqual(parts);
  });

  it("keeps a camelCase word whole and adds its words, and splits paths and snake_case as ever", () => {
    const t = tokenize("see src/gen/api_client.ts and GeneratedApiClient", PLAIN_TOKENIZER);
    expect(t).toEqual(["see", "src", "gen", "api", "client", "ts", "generatedapiclient", "generated", "api", "client"]);
    // A prompt naming the class meets a card that names its words.
    const card = new Set(tokenize("The API client in src/gen is generated; never edit it by hand."));
    expect(tokenize("why did my edit to GeneratedApiClient vanish").filter((x) => card.has(x))).toEqual(expect.arrayContaining(["api", "client"]));
  });
});

describe("termSpans", () => {
  const shown = (text: string): [string, string][] => {
    const r = termSpans(text);
    return r.spans.map((s) => [s.term, r.text.slice(s.from, s.to)]);
  };

  it("gives each term the words it was made from, as written", () => {
    expect(shown("Nightly Claude runs")).toEqual([
      ["nightli", "Nightly"],
      ["claud", "Claude"],
      ["run", "runs"],
    ]);
    expect(shown("GeneratedApiClient")).toEqual([
      ["generatedapiclient", "GeneratedApiClient"],
      ["generat", "Generated"],
      ["api", "Api"],
      ["client", "Client"],
    ]);
  });

  it("points a pair of Chinese characters at the characters written, before folding", () => {
    expect(shown("排程連結")).toEqual([
      ["排程", "排程"],
      ["程连", "程連"],
      ["连结", "連結"],
    ]);
    // Characters outside the BMP take two code units each; kana split at the script change.
    expect(shown("𠮷野家のメニュー").map(([, w]) => w)).toEqual(["𠮷野", "野家", "メニ", "ニュ", "ュー"]);
  });

  it("gives exactly tokenizeQuery's terms", () => {
    for (const text of [
      "why does my nightly job fail under launchd?",
      "为什么排程跑不起来",
      "ＦＵＬＬ width and İstanbul",
      "ファイルを保存する",
      "parseJSONResponse useEffect",
    ]) {
      expect(termSpans(text).spans.map((s) => s.term)).toEqual(tokenizeQuery(text).terms);
    }
  });
});

describe("writtenInCjk", () => {
  it("tells Chinese, Japanese and Korean from the rest, a line of it above a pasted English trace included", () => {
    expect(writtenInCjk("两个会话同时写数据库时报错")).toBe(true);
    expect(writtenInCjk("このエラーの意味を教えて")).toBe(true);
    expect(writtenInCjk("이 오류가 무슨 뜻이야")).toBe(true);
    expect(writtenInCjk(`部署又失败了，看一下\n${"Error: connect ECONNREFUSED 127.0.0.1:5432 at TCPConnectWrap.afterConnect ".repeat(4)}`)).toBe(true);
    expect(writtenInCjk("why does the nightly job fail under launchd?")).toBe(false);
    // A name or two in another script does not make a sentence of it.
    expect(writtenInCjk("deploy the 東京 region first, then the rest of the fleet")).toBe(false);
    expect(writtenInCjk("")).toBe(false);
  });
});
