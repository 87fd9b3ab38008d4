/** Renders a view's DOM with styles.css in headless Chromium and saves a PNG under test-artifacts/. */

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "./helpers";

export const ARTIFACTS = join(ROOT, "test-artifacts");
const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));

export const canScreenshot = CHROMIUM !== undefined;

/** Returns the PNG's path; throws if Chromium fails. */
export function screenshot(name: string, html: string, size = "900,1100"): string {
  if (!CHROMIUM) throw new Error("Chromium is not installed (Debian package chromium)");
  mkdirSync(ARTIFACTS, { recursive: true });
  const page = `<!doctype html><html><head><meta charset="utf-8"><style>${readFileSync(join(ROOT, "test", "fakes", "obsidian-theme.css"), "utf8")}</style><style>${readFileSync(join(ROOT, "styles.css"), "utf8")}</style></head><body>${html}</body></html>`;
  const htmlPath = join(ARTIFACTS, `${name}.html`);
  writeFileSync(htmlPath, page);
  const png = join(ARTIFACTS, `${name}.png`);
  const r = spawnSync(
    CHROMIUM,
    ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", `--user-data-dir=${tempDir("vm-chrome-")}`, `--window-size=${size}`, `--screenshot=${png}`, `file://${htmlPath}`],
    { encoding: "utf8", timeout: 60_000 },
  );
  if (!existsSync(png) || statSync(png).size < 1000) throw new Error(`Chromium made no screenshot: ${r.stderr.slice(-500)}`);
  return png;
}
