import { homedir } from "node:os";
import { describe, expect, it } from "vitest";
import { homeDir } from "../../../src/core/io/home";

describe("homeDir", () => {
  it("is HOME, else USERPROFILE, else Node's answer", () => {
    expect(homeDir({ HOME: "/home/a", USERPROFILE: "C:\\Users\\b" })).toBe("/home/a");
    expect(homeDir({ USERPROFILE: "C:\\Users\\b" })).toBe("C:\\Users\\b");
    expect(homeDir({})).toBe(homedir());
    expect(homeDir({ HOME: "" })).toBe(homedir());
  });
});
