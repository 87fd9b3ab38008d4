import { describe, expect, it } from "vitest";
import { DEFAULT_TOKENIZER, PLAIN_TOKENIZER, tokenize, uniqueTerms } from "../../../src/core/text/tokenizer";

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
    expect(tokenize("constructor __proto__ toString hasOwnProperty", PLAIN_TOKENIZER)).toEqual(["constructor", "proto", "tostring", "hasownproperty"]);
    expect(tokenize("constructor __proto__ toString hasOwnProperty")).toEqual(["constructor", "proto", "tostr", "hasownproperti"]);
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
