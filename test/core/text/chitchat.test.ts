import { describe, expect, it } from "vitest";
import { isAcknowledgement } from "../../../src/core/text/chitchat";

describe("acknowledgements", () => {
  it.each([
    "ok continue",
    "ファイル名はそれでいいと思う、ありがとう",
    "さっきのリンク、ちゃんと開けました。どうも！",
    "ノートの整理、だいぶ片付いてきた気がする。助かったよ",
    "the link opens now, thanks!",
    "链接能点开了，谢谢",
    "いいね、そのファイルはそのままで大丈夫",
    "リンクの件はもう解決したので気にしないで",
    "the sync thing sorted itself out, never mind",
  ])("a closing remark: %s", (prompt) => {
    expect(isAcknowledgement(prompt)).toBe(true);
  });

  it.each([
    "why does my nightly job fail under launchd?",
    "how do I say thanks in a template?",
    "テンプレートでありがとうと書くには？",
    "why does it say thanks",
    // Long enough to be a question of its own that merely ends politely.
    "the vault will not open after I moved it to another drive and renamed the folder, any idea what to check first, thanks",
  ])("a question: %s", (prompt) => {
    expect(isAcknowledgement(prompt)).toBe(false);
  });
});
