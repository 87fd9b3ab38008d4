/**
 * Renders a view's DOM with Obsidian's default theme (light and dark) and styles.css in headless
 * Chromium, saves a PNG of each under test-artifacts/, and checks what a person would: every text
 * readable against what is behind it (contrast ≥ 4.5:1, from the colours Chromium rendered), no
 * text running out of its box, and every form field labelled.
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "./helpers";

export const ARTIFACTS = join(ROOT, "test-artifacts");
const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));

export const canScreenshot = CHROMIUM !== undefined;

export type Theme = "light" | "dark";

export interface PageCheck {
  /** Elements with text whose contrast against their rendered background is under 4.5:1. */
  lowContrast: { text: string; ratio: number; color: string; background: string }[];
  /** Elements whose content is wider than their box, or that reach past the window. */
  overflow: { tag: string; cls: string; text: string; scroll: number; client: number }[];
  /** Form fields with no label: no aria-label, no <label>, no setting name beside them. */
  unlabelled: { tag: string; placeholder: string }[];
  /** Elements with text that were checked, so a test can tell an empty page from a good one. */
  texts: number;
  /** The text of every CJK run rendered, with the width Chromium gave it (0 would be no glyphs). */
  cjkWidths: number[];
}

export interface Rendered {
  png: Record<Theme, string>;
  check: Record<Theme, PageCheck>;
}

// Runs in the page once it has laid out; writes its findings into the page for --dump-dom.
const CHECKER = String.raw`
(() => {
  const parse = (c) => { const m = /rgba?\(([^)]+)\)/.exec(c); if (!m) return null; const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number); return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }; };
  const over = (top, under) => ({ r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a), b: top.b * top.a + under.b * (1 - top.a), a: 1 });
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    let base = { r: 255, g: 255, b: 255, a: 1 };
    for (const l of layers.reverse()) base = over(l, base);
    return base;
  };
  const lum = (c) => { const ch = [c.r, c.g, c.b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2]; };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const css = (c) => 'rgb(' + [c.r, c.g, c.b].map(Math.round).join(',') + ')';
  const report = { lowContrast: [], overflow: [], unlabelled: [], texts: 0, cjkWidths: [] };
  const visible = (el) => { const s = getComputedStyle(el); const r = el.getBoundingClientRect(); return s.visibility !== 'hidden' && s.display !== 'none' && r.width > 0 && r.height > 0; };
  const viewport = document.documentElement.clientWidth;
  for (const el of document.body.querySelectorAll('*')) {
    if (el.id === 'vm-report' || el.closest('script,style,svg')) continue;
    if (!visible(el)) continue;
    const own = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim() !== '').map((n) => n.textContent.trim()).join(' ');
    const typed = el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || (el.tagName === 'INPUT' && /^(text|number|search|)$/.test(el.type));
    const fieldText = typed ? (el.value || '') : '';
    const text = own || fieldText;
    if (text) {
      report.texts++;
      const bg = background(el);
      const fgRaw = parse(getComputedStyle(el).color);
      const fg = fgRaw.a < 1 ? over(fgRaw, bg) : fgRaw;
      const r = ratio(fg, bg);
      if (r < 4.5) report.lowContrast.push({ text: text.slice(0, 60), ratio: Math.round(r * 100) / 100, color: css(fg), background: css(bg) });
      if (/[\u3040-\u30ff\u3400-\u9fff]/.test(own)) {
        const range = document.createRange();
        for (const n of el.childNodes) if (n.nodeType === 3 && /[\u3400-\u9fff]/.test(n.textContent)) { range.selectNodeContents(n); report.cjkWidths.push(Math.round(range.getBoundingClientRect().width)); }
      }
    }
    const s = getComputedStyle(el);
    // A text field scrolls its own text, as every field does.
    const scrolls = /auto|scroll/.test(s.overflowX) || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName);
    if (!scrolls && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'HTML' && el.tagName !== 'BODY') {
      report.overflow.push({ tag: el.tagName.toLowerCase(), cls: String(el.className), text: (el.textContent || '').trim().slice(0, 60), scroll: el.scrollWidth, client: el.clientWidth });
    } else if (el.getBoundingClientRect().right > viewport + 1 && !el.closest('[style*="overflow"]')) {
      report.overflow.push({ tag: el.tagName.toLowerCase(), cls: String(el.className), text: (el.textContent || '').trim().slice(0, 60), scroll: Math.round(el.getBoundingClientRect().right), client: viewport });
    }
    if (/^(INPUT|SELECT|TEXTAREA)$/.test(el.tagName) && el.type !== 'hidden') {
      const setting = el.closest('.setting-item');
      const named = setting && setting.querySelector('.setting-item-name') && setting.querySelector('.setting-item-name').textContent.trim() !== '';
      const forLabel = el.id && document.querySelector('label[for="' + el.id + '"]');
      if (!el.getAttribute('aria-label') && !el.closest('label') && !named && !forLabel) report.unlabelled.push({ tag: el.tagName.toLowerCase(), placeholder: el.getAttribute('placeholder') || '' });
    }
  }
  const out = document.createElement('pre');
  out.id = 'vm-report';
  out.style.display = 'none';
  out.textContent = JSON.stringify(report);
  document.body.appendChild(out);
})();
`;

function page(html: string, theme: Theme): string {
  const css = (file: string) => readFileSync(join(ROOT, file), "utf8");
  return `<!doctype html><html><head><meta charset="utf-8"><style>${css("test/fakes/obsidian-theme.css")}</style><style>${css("styles.css")}</style></head><body class="theme-${theme}">${html}<script>${CHECKER}</script></body></html>`;
}

function chromium(args: string[]): ReturnType<typeof spawnSync> {
  return spawnSync(
    CHROMIUM!,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--hide-scrollbars",
      `--user-data-dir=${tempDir("vm-chrome-")}`,
      ...args,
    ],
    { encoding: "utf8", timeout: 60_000, maxBuffer: 64 << 20 },
  );
}

/**
 * The element's HTML as a person sees it: what was typed or set in a field (its `value`, `checked`,
 * the chosen option) is a property, which outerHTML leaves out, so every field showed empty.
 */
export function shownHtml(el: Element): string {
  const copy = el.cloneNode(true) as Element;
  const fields = (root: Element) => [...root.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>("input, textarea, select")];
  const copies = fields(copy);
  fields(el).forEach((field, i) => {
    const c = copies[i];
    if (field instanceof HTMLInputElement && (field.type === "checkbox" || field.type === "radio")) {
      if (field.checked) c.setAttribute("checked", "");
      else c.removeAttribute("checked");
    } else if (field instanceof HTMLSelectElement) {
      [...(c as HTMLSelectElement).options].forEach((o, j) => (j === field.selectedIndex ? o.setAttribute("selected", "") : o.removeAttribute("selected")));
    } else if (field instanceof HTMLTextAreaElement) c.textContent = field.value;
    else c.setAttribute("value", field.value);
  });
  return copy.outerHTML;
}

/** Renders `html` in both themes; returns the PNGs' paths and what the checks found. Throws if Chromium fails. */
export function renderView(name: string, html: string, size = "900,1100"): Rendered {
  if (!CHROMIUM) throw new Error("Chromium is not installed (Debian package chromium)");
  mkdirSync(ARTIFACTS, { recursive: true });
  const png = {} as Record<Theme, string>;
  const check = {} as Record<Theme, PageCheck>;
  for (const theme of ["light", "dark"] as const) {
    const htmlPath = join(ARTIFACTS, `${name}-${theme}.html`);
    writeFileSync(htmlPath, page(html, theme));
    png[theme] = join(ARTIFACTS, `${name}-${theme}.png`);
    const shot = chromium([`--window-size=${size}`, `--screenshot=${png[theme]}`, `file://${htmlPath}`]);
    if (!existsSync(png[theme]) || statSync(png[theme]).size < 1000) throw new Error(`Chromium made no screenshot: ${String(shot.stderr).slice(-500)}`);
    const dump = chromium([`--window-size=${size}`, "--dump-dom", `file://${htmlPath}`]);
    const m = /<pre id="vm-report"[^>]*>([\s\S]*?)<\/pre>/.exec(String(dump.stdout));
    if (!m) throw new Error(`the page's checks did not run: ${String(dump.stderr).slice(-500)}`);
    check[theme] = JSON.parse(
      m[1]
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&amp;/g, "&"),
    ) as PageCheck;
  }
  return { png, check };
}

/** What a test asserts of a rendered view: nothing unreadable, cut off or unlabelled, in either theme. */
export function problems(r: Rendered): Record<Theme, Omit<PageCheck, "texts" | "cjkWidths">> {
  const of = (c: PageCheck) => ({ lowContrast: c.lowContrast, overflow: c.overflow, unlabelled: c.unlabelled });
  return { light: of(r.check.light), dark: of(r.check.dark) };
}

export const NO_PROBLEMS = { light: { lowContrast: [], overflow: [], unlabelled: [] }, dark: { lowContrast: [], overflow: [], unlabelled: [] } };
