/**
 * A faithful fake of the slice of Obsidian's API the plugin uses. The vault is a real folder on
 * disk, events fire from the same methods that change files, and views render into a real DOM
 * (happy-dom) with Obsidian's element helpers. Aliased to `obsidian` in vitest.config.ts.
 */

import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import matter from "gray-matter";
import { MetadataCache, readForCache } from "./metadata-cache";

export type { CachedMetadata } from "./metadata-cache";

// ---------- DOM helpers Obsidian adds to every element ----------

export interface DomElementInfo {
  cls?: string | string[];
  text?: string;
  attr?: Record<string, string | number | boolean | null>;
  title?: string;
  type?: string;
  value?: string;
  placeholder?: string;
  href?: string;
}

function installDomHelpers(): void {
  const proto = (globalThis as unknown as { HTMLElement?: { prototype: Record<string, unknown> } }).HTMLElement?.prototype;
  if (!proto || proto.createEl) return;
  proto.createEl = function (this: HTMLElement, tag: string, o?: DomElementInfo | string, cb?: (el: HTMLElement) => void) {
    const el = this.ownerDocument.createElement(tag);
    const info: DomElementInfo = typeof o === "string" ? { cls: o } : (o ?? {});
    if (info.cls) el.className = Array.isArray(info.cls) ? info.cls.join(" ") : info.cls;
    if (info.text !== undefined) el.textContent = info.text;
    if (info.title) el.setAttribute("title", info.title);
    if (info.type) el.setAttribute("type", info.type);
    if (info.placeholder) el.setAttribute("placeholder", info.placeholder);
    if (info.href) el.setAttribute("href", info.href);
    if (info.value !== undefined) (el as HTMLInputElement).value = info.value;
    for (const [k, v] of Object.entries(info.attr ?? {})) if (v !== null && v !== false) el.setAttribute(k, String(v));
    this.appendChild(el);
    cb?.(el);
    return el;
  };
  proto.createDiv = function (this: HTMLElement, o?: DomElementInfo | string, cb?: (el: HTMLElement) => void) {
    return (this as unknown as { createEl: (...a: unknown[]) => HTMLElement }).createEl("div", o, cb);
  };
  proto.createSpan = function (this: HTMLElement, o?: DomElementInfo | string, cb?: (el: HTMLElement) => void) {
    return (this as unknown as { createEl: (...a: unknown[]) => HTMLElement }).createEl("span", o, cb);
  };
  proto.empty = function (this: HTMLElement) {
    while (this.firstChild) this.removeChild(this.firstChild);
  };
  proto.appendText = function (this: HTMLElement, text: string) {
    this.appendChild(this.ownerDocument.createTextNode(text));
  };
  proto.setText = function (this: HTMLElement, text: string) {
    this.textContent = text;
  };
  proto.addClass = function (this: HTMLElement, ...cls: string[]) {
    this.classList.add(...cls);
  };
  proto.removeClass = function (this: HTMLElement, ...cls: string[]) {
    this.classList.remove(...cls);
  };
  proto.toggleClass = function (this: HTMLElement, cls: string, on: boolean) {
    this.classList.toggle(cls, on);
  };
  proto.hasClass = function (this: HTMLElement, cls: string) {
    return this.classList.contains(cls);
  };
  proto.setAttr = function (this: HTMLElement, k: string, v: string | number | boolean | null) {
    if (v === null || v === false) this.removeAttribute(k);
    else this.setAttribute(k, String(v));
  };
}
installDomHelpers();

function doc(): Document {
  const d = (globalThis as { document?: Document }).document;
  if (!d) throw new Error("this part of the fake needs a DOM: add `// @vitest-environment happy-dom` to the test file");
  return d;
}

type WithHelpers = HTMLElement & {
  createEl<K extends keyof HTMLElementTagNameMap>(tag: K, o?: DomElementInfo | string): HTMLElementTagNameMap[K];
  createDiv(o?: DomElementInfo | string): HTMLDivElement;
  createSpan(o?: DomElementInfo | string): HTMLSpanElement;
  empty(): void;
  addClass(...c: string[]): void;
};
function el(tag: string, cls?: string): WithHelpers {
  const e = doc().createElement(tag) as unknown as WithHelpers;
  if (cls) e.className = cls;
  return e;
}

// ---------- Events ----------

export { Events, type EventRef } from "./events";
import { Events, type EventRef } from "./events";

export class Component {
  private refs: EventRef[] = [];
  private intervals: number[] = [];
  private children: (() => void)[] = [];
  registerEvent(ref: EventRef): void {
    this.refs.push(ref);
  }
  registerInterval(id: number): number {
    this.intervals.push(id);
    return id;
  }
  register(cb: () => void): void {
    this.children.push(cb);
  }
  unload(): void {
    for (const ref of this.refs.splice(0)) ref.events.offref(ref);
    for (const id of this.intervals.splice(0)) clearInterval(id);
    for (const cb of this.children.splice(0)) cb();
    (this as unknown as { onunload?: () => void }).onunload?.();
  }
}

// ---------- Files ----------

export abstract class TAbstractFile {
  vault!: Vault;
  path = "";
  name = "";
  parent: TFolder | null = null;
}

export class TFile extends TAbstractFile {
  stat = { ctime: 0, mtime: 0, size: 0 };
  basename = "";
  extension = "";
}

export class TFolder extends TAbstractFile {
  children: TAbstractFile[] = [];
  isRoot(): boolean {
    return this.path === "/" || this.path === "";
  }
}

export function normalizePath(path: string): string {
  let p = path.replace(/[\\/]+/g, "/").replace(/^\/+|\/+$/g, "");
  p = p.replace(/\u00a0|\u202f/g, " ");
  if (p === "") p = "/";
  return p.normalize("NFC");
}

export class FileSystemAdapter {
  constructor(private readonly basePath: string) {}
  getBasePath(): string {
    return this.basePath;
  }
  getName(): string {
    return this.basePath.split(/[\\/]/).pop() ?? "";
  }
  getFullPath(path: string): string {
    return join(this.basePath, path);
  }
  async exists(path: string): Promise<boolean> {
    return existsSync(join(this.basePath, path));
  }
  async read(path: string): Promise<string> {
    return readFileSync(join(this.basePath, path), "utf8");
  }
  async write(path: string, data: string): Promise<void> {
    mkdirSync(dirname(join(this.basePath, path)), { recursive: true });
    writeFileSync(join(this.basePath, path), data, "utf8");
  }
  async mkdir(path: string): Promise<void> {
    mkdirSync(join(this.basePath, path), { recursive: true });
  }
  /** As Obsidian's: the folder's own files and folders, vault-relative. */
  async list(path: string): Promise<{ files: string[]; folders: string[] }> {
    const out = { files: [] as string[], folders: [] as string[] };
    for (const e of readdirSync(join(this.basePath, path), { withFileTypes: true })) (e.isDirectory() ? out.folders : out.files).push(`${path}/${e.name}`);
    return out;
  }
}

export class Vault extends Events {
  readonly adapter: FileSystemAdapter;
  readonly configDir = ".obsidian";
  private readonly files = new Map<string, TAbstractFile>();
  private readonly root: TFolder;

  constructor(readonly basePath: string) {
    super();
    this.adapter = new FileSystemAdapter(basePath);
    this.root = new TFolder();
    this.root.vault = this;
    this.root.path = "/";
    this.files.set("/", this.root);
    this.scan("", this.root);
  }

  getName(): string {
    return this.adapter.getName();
  }
  getRoot(): TFolder {
    return this.root;
  }
  getAbstractFileByPath(path: string): TAbstractFile | null {
    return this.files.get(normalizePath(path)) ?? null;
  }
  getFileByPath(path: string): TFile | null {
    const f = this.getAbstractFileByPath(path);
    return f instanceof TFile ? f : null;
  }
  getFiles(): TFile[] {
    return [...this.files.values()].filter((f): f is TFile => f instanceof TFile);
  }
  getMarkdownFiles(): TFile[] {
    return this.getFiles().filter((f) => f.extension === "md");
  }
  async read(file: TFile): Promise<string> {
    return readFileSync(this.abs(file.path), "utf8");
  }
  async cachedRead(file: TFile): Promise<string> {
    return this.read(file);
  }
  async create(path: string, data: string): Promise<TFile> {
    const p = normalizePath(path);
    if (this.files.has(p)) throw new Error("File already exists.");
    mkdirSync(dirname(this.abs(p)), { recursive: true });
    this.ensureFolder(dirname(p) === "." ? "" : dirname(p));
    writeFileSync(this.abs(p), data, "utf8");
    const file = this.addFile(p);
    this.trigger("create", file);
    return file;
  }
  async createFolder(path: string): Promise<TFolder> {
    mkdirSync(this.abs(path), { recursive: true });
    return this.ensureFolder(normalizePath(path));
  }
  async modify(file: TFile, data: string): Promise<void> {
    writeFileSync(this.abs(file.path), data, "utf8");
    this.refreshStat(file);
    this.trigger("modify", file);
  }
  async process(file: TFile, fn: (data: string) => string): Promise<string> {
    const next = fn(await this.read(file));
    await this.modify(file, next);
    return next;
  }
  async append(file: TFile, data: string): Promise<void> {
    await this.modify(file, (await this.read(file)) + data);
  }
  async rename(file: TAbstractFile, newPath: string): Promise<void> {
    const to = normalizePath(newPath);
    if (this.files.has(to)) throw new Error("Destination file already exists!");
    const from = file.path;
    mkdirSync(dirname(this.abs(to)), { recursive: true });
    const hidden = to.split("/").some((part) => part.startsWith("."));
    if (!hidden) this.ensureFolder(dirname(to) === "." ? "" : dirname(to));
    renameSync(this.abs(from), this.abs(to));
    this.files.delete(from);
    file.parent?.children.splice(file.parent.children.indexOf(file), 1);
    // Obsidian does not track what is in a dot folder: a note moved there leaves the vault's files.
    if (hidden) {
      file.path = to;
      file.name = to.split("/").pop() ?? to;
      this.trigger("rename", file, from);
      return;
    }
    this.place(file, to);
    this.trigger("rename", file, from);
  }
  async delete(file: TAbstractFile): Promise<void> {
    rmSync(this.abs(file.path), { recursive: true });
    this.files.delete(file.path);
    file.parent?.children.splice(file.parent.children.indexOf(file), 1);
    this.trigger("delete", file);
  }
  async trash(file: TAbstractFile): Promise<void> {
    await this.delete(file);
  }

  private abs(path: string): string {
    return join(this.basePath, path);
  }
  private scan(rel: string, folder: TFolder): void {
    for (const entry of readdirSync(join(this.basePath, rel), { withFileTypes: true })) {
      // Obsidian does not list dot folders and dot files.
      if (entry.name.startsWith(".")) continue;
      const p = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) this.scan(p, this.ensureFolder(p));
      else if (entry.isFile()) this.addFile(p);
    }
    void folder;
  }
  private ensureFolder(path: string): TFolder {
    if (path === "" || path === "/") return this.root;
    const existing = this.files.get(path);
    if (existing instanceof TFolder) return existing;
    const parent = this.ensureFolder(dirname(path) === "." ? "" : dirname(path));
    const folder = new TFolder();
    folder.vault = this;
    folder.path = path;
    folder.name = path.split("/").pop() ?? path;
    folder.parent = parent;
    parent.children.push(folder);
    this.files.set(path, folder);
    return folder;
  }
  private addFile(path: string): TFile {
    const file = new TFile();
    file.vault = this;
    this.place(file, path);
    this.refreshStat(file);
    return file;
  }
  private place(file: TAbstractFile, path: string): void {
    file.path = path;
    file.name = path.split("/").pop() ?? path;
    if (file instanceof TFile) {
      const dot = file.name.lastIndexOf(".");
      file.basename = dot > 0 ? file.name.slice(0, dot) : file.name;
      file.extension = dot > 0 ? file.name.slice(dot + 1) : "";
    }
    const parent = this.ensureFolder(dirname(path) === "." ? "" : dirname(path));
    file.parent = parent;
    parent.children.push(file);
    this.files.set(path, file);
  }
  private refreshStat(file: TFile): void {
    const st = statSync(this.abs(file.path));
    file.stat = { ctime: st.ctimeMs, mtime: st.mtimeMs, size: st.size };
  }
}

// ---------- App, workspace, file manager ----------

export interface OpenViewState {
  eState?: Record<string, unknown>;
}

export class WorkspaceLeaf {
  view: View | null = null;
  /** What getLeaf was asked for when this leaf was made: false (reuse), "tab", "split", "window". */
  kind: boolean | string = false;
  /** The last file opened in this leaf, and where: what a click on a finding did. */
  opened: { path: string; state?: OpenViewState } | null = null;
  constructor(readonly workspace: Workspace) {}
  async setViewState(state: { type: string; active?: boolean }): Promise<void> {
    const create = this.workspace.viewCreators.get(state.type);
    if (!create) throw new Error(`no view registered for ${state.type}`);
    this.view = create(this);
    doc().body.appendChild(this.view.containerEl);
    await this.view.onOpen();
  }
  async openFile(file: TFile, state?: OpenViewState): Promise<void> {
    this.opened = { path: file.path, state };
  }
  detach(): void {
    this.view?.containerEl.remove();
    this.workspace.leaves = this.workspace.leaves.filter((l) => l !== this);
  }
}

export abstract class View extends Component {
  readonly containerEl: WithHelpers;
  readonly app: App;
  constructor(readonly leaf: WorkspaceLeaf) {
    super();
    this.app = leaf.workspace.app;
    this.containerEl = el("div", "workspace-leaf-content");
  }
  abstract getViewType(): string;
  abstract getDisplayText(): string;
  getIcon(): string {
    return "";
  }
  async onOpen(): Promise<void> {}
  async onClose(): Promise<void> {}
}

export abstract class ItemView extends View {
  readonly contentEl: WithHelpers;
  constructor(leaf: WorkspaceLeaf) {
    super(leaf);
    this.contentEl = this.containerEl.createDiv({ cls: "view-content" });
  }
}

export class Workspace extends Events {
  layoutReady = false;
  /** The note open in the active editor; a test sets it. */
  activeFile: TFile | null = null;
  getActiveFile(): TFile | null {
    return this.activeFile;
  }
  leaves: WorkspaceLeaf[] = [];
  readonly viewCreators = new Map<string, (leaf: WorkspaceLeaf) => View>();
  app!: App;
  private readyQueue: (() => unknown)[] = [];
  getLeaf(newLeaf?: boolean | "tab" | "split" | "window"): WorkspaceLeaf {
    const leaf = new WorkspaceLeaf(this);
    leaf.kind = newLeaf ?? false;
    this.leaves.push(leaf);
    return leaf;
  }
  getRightLeaf(_split: boolean): WorkspaceLeaf {
    return this.getLeaf(true);
  }
  getLeavesOfType(type: string): WorkspaceLeaf[] {
    return this.leaves.filter((l) => l.view?.getViewType() === type);
  }
  async revealLeaf(_leaf: WorkspaceLeaf): Promise<void> {}
  onLayoutReady(cb: () => unknown): void {
    if (this.layoutReady) cb();
    else this.readyQueue.push(cb);
  }
  /** Test hook: Obsidian calls this once the layout has loaded. */
  setLayoutReady(): void {
    this.layoutReady = true;
    for (const cb of this.readyQueue.splice(0)) cb();
  }
}

export class FileManager {
  constructor(private readonly vault: Vault) {}
  /**
   * As Obsidian does: parse the YAML frontmatter (throwing on YAML it cannot read, and creating a
   * block in a note without one), let `fn` change it, write the block back in block style with
   * the body as it was. Calls are counted, so a test can tell a write went through here.
   */
  processFrontMatterCalls = 0;
  async processFrontMatter(file: TFile, fn: (fm: Record<string, unknown>) => void): Promise<void> {
    this.processFrontMatterCalls++;
    const text = await this.vault.read(file);
    // Options turn gray-matter's cache off: a cached parse would hand back another note's object.
    const parsed = matter(text, {});
    const data = { ...(parsed.data as Record<string, unknown>) };
    fn(data);
    await this.vault.modify(file, matter.stringify(parsed.content, data));
  }
  async renameFile(file: TAbstractFile, newPath: string): Promise<void> {
    await this.vault.rename(file, newPath);
  }
  async trashFile(file: TAbstractFile): Promise<void> {
    await this.vault.trash(file);
  }
}

export class App {
  readonly vault: Vault;
  readonly workspace = new Workspace();
  readonly fileManager: FileManager;
  readonly metadataCache: MetadataCache;
  readonly commands = new Map<string, Command>();
  constructor(basePath: string) {
    this.vault = new Vault(basePath);
    this.metadataCache = new MetadataCache((path) => (path.toLowerCase().endsWith(".md") ? readForCache(join(basePath, path)) : null));
    // As Obsidian does: a saved note is parsed, then "changed" fires with the new parse.
    for (const name of ["create", "modify"] as const) {
      this.vault.on(name, (f: TAbstractFile) => {
        if (f instanceof TFile && f.extension === "md") setTimeout(() => this.metadataCache.trigger("changed", f, "", this.metadataCache.getFileCache(f)), 0);
      });
    }
    this.fileManager = new FileManager(this.vault);
    this.workspace.app = this;
  }
  /** Obsidian's per-device storage: JSON in the window's localStorage, kept apart for each vault; never synced. */
  readonly localStorage = new Map<string, string>();
  loadLocalStorage(key: string): unknown {
    const v = this.localStorage.get(key);
    return v === undefined ? null : (JSON.parse(v) as unknown);
  }
  saveLocalStorage(key: string, data: unknown): void {
    if (data === null || data === undefined) this.localStorage.delete(key);
    else this.localStorage.set(key, JSON.stringify(data));
  }
}

// ---------- Plugin ----------

export interface Command {
  id: string;
  name: string;
  callback?: () => unknown;
  checkCallback?: (checking: boolean) => boolean | void;
  hotkeys?: unknown[];
}

export interface PluginManifest {
  id: string;
  name: string;
  version: string;
  dir?: string;
}

export class Plugin extends Component {
  readonly settingTabs: PluginSettingTab[] = [];
  constructor(
    readonly app: App,
    readonly manifest: PluginManifest,
  ) {
    super();
  }
  private dataPath(): string {
    return join(this.app.vault.basePath, this.app.vault.configDir, "plugins", this.manifest.id, "data.json");
  }
  async loadData(): Promise<unknown> {
    try {
      return JSON.parse(readFileSync(this.dataPath(), "utf8")) as unknown;
    } catch {
      return null;
    }
  }
  async saveData(data: unknown): Promise<void> {
    mkdirSync(dirname(this.dataPath()), { recursive: true });
    writeFileSync(this.dataPath(), JSON.stringify(data, null, 2));
  }
  addCommand(cmd: Command): Command {
    if (cmd.hotkeys) throw new Error("plugins must not set default hotkeys");
    this.app.commands.set(`${this.manifest.id}:${cmd.id}`, cmd);
    return cmd;
  }
  addSettingTab(tab: PluginSettingTab): void {
    this.settingTabs.push(tab);
  }
  addRibbonIcon(icon: string, title: string, cb: (evt: MouseEvent) => unknown): HTMLElement {
    const e = el("div", "side-dock-ribbon-action");
    e.setAttribute("aria-label", title);
    e.setAttribute("data-icon", icon);
    e.addEventListener("click", (evt) => cb(evt));
    return e;
  }
  registerView(type: string, create: (leaf: WorkspaceLeaf) => View): void {
    this.app.workspace.viewCreators.set(type, create);
  }
  /** Sources registered for Obsidian's page preview ("hover-link"), by id. */
  readonly hoverSources = new Map<string, { display: string; defaultMod: boolean }>();
  registerHoverLinkSource(id: string, info: { display: string; defaultMod: boolean }): void {
    this.hoverSources.set(id, info);
  }
  addStatusBarItem(): HTMLElement {
    return el("div", "status-bar-item");
  }
  async onload(): Promise<void> {}
  /** Test hook mirroring Obsidian: load the plugin. */
  async load(): Promise<void> {
    await this.onload();
  }
}

// ---------- UI ----------

export class Notice {
  static shown: Notice[] = [];
  message: string;
  hidden = false;
  constructor(
    message: string | DocumentFragment,
    readonly duration?: number,
  ) {
    this.message = typeof message === "string" ? message : (message.textContent ?? "");
    Notice.shown.push(this);
  }
  setMessage(message: string | DocumentFragment): this {
    this.message = typeof message === "string" ? message : (message.textContent ?? "");
    return this;
  }
  hide(): void {
    this.hidden = true;
  }
}

export class Modal {
  readonly containerEl: WithHelpers;
  readonly modalEl: WithHelpers;
  readonly titleEl: WithHelpers;
  readonly contentEl: WithHelpers;
  isOpen = false;
  constructor(readonly app: App) {
    this.containerEl = el("div", "modal-container");
    this.modalEl = this.containerEl.createDiv({ cls: "modal" });
    this.titleEl = this.modalEl.createDiv({ cls: "modal-title" });
    this.contentEl = this.modalEl.createDiv({ cls: "modal-content" });
  }
  setTitle(title: string): this {
    this.titleEl.textContent = title;
    return this;
  }
  open(): void {
    doc().body.appendChild(this.containerEl);
    this.isOpen = true;
    this.onOpen();
  }
  close(): void {
    this.isOpen = false;
    this.onClose();
    this.containerEl.remove();
  }
  onOpen(): void {}
  onClose(): void {}
}

abstract class ValueComponent<T> {
  protected changeHandlers: ((v: T) => unknown)[] = [];
  onChange(cb: (v: T) => unknown): this {
    this.changeHandlers.push(cb);
    return this;
  }
}

export class TextComponent extends ValueComponent<string> {
  readonly inputEl: HTMLInputElement;
  constructor(containerEl: HTMLElement, tag: "input" | "textarea" = "input") {
    super();
    this.inputEl = containerEl.ownerDocument.createElement(tag) as HTMLInputElement;
    if (tag === "input") this.inputEl.type = "text";
    containerEl.appendChild(this.inputEl);
    this.inputEl.addEventListener("input", () => {
      for (const h of this.changeHandlers) void h(this.inputEl.value);
    });
  }
  setValue(v: string): this {
    this.inputEl.value = v;
    return this;
  }
  getValue(): string {
    return this.inputEl.value;
  }
  setPlaceholder(p: string): this {
    this.inputEl.placeholder = p;
    return this;
  }
}

export class TextAreaComponent extends TextComponent {
  constructor(containerEl: HTMLElement) {
    super(containerEl, "textarea");
  }
}

export class ToggleComponent extends ValueComponent<boolean> {
  readonly toggleEl: HTMLElement;
  private value = false;
  constructor(containerEl: HTMLElement) {
    super();
    this.toggleEl = containerEl.ownerDocument.createElement("div");
    this.toggleEl.className = "checkbox-container";
    this.toggleEl.tabIndex = 0;
    containerEl.appendChild(this.toggleEl);
    this.toggleEl.addEventListener("click", () => this.setValue(!this.value, true));
  }
  setValue(v: boolean, fire = false): this {
    this.value = v;
    this.toggleEl.classList.toggle("is-enabled", v);
    if (fire) for (const h of this.changeHandlers) void h(v);
    return this;
  }
  getValue(): boolean {
    return this.value;
  }
}

export class DropdownComponent extends ValueComponent<string> {
  readonly selectEl: HTMLSelectElement;
  constructor(containerEl: HTMLElement) {
    super();
    this.selectEl = containerEl.ownerDocument.createElement("select");
    containerEl.appendChild(this.selectEl);
    this.selectEl.addEventListener("change", () => {
      for (const h of this.changeHandlers) void h(this.selectEl.value);
    });
  }
  addOption(value: string, display: string): this {
    const o = this.selectEl.ownerDocument.createElement("option");
    o.value = value;
    o.textContent = display;
    this.selectEl.appendChild(o);
    return this;
  }
  setValue(v: string): this {
    this.selectEl.value = v;
    return this;
  }
  getValue(): string {
    return this.selectEl.value;
  }
}

export class ButtonComponent {
  readonly buttonEl: HTMLButtonElement;
  constructor(containerEl: HTMLElement) {
    this.buttonEl = containerEl.ownerDocument.createElement("button");
    containerEl.appendChild(this.buttonEl);
  }
  setButtonText(t: string): this {
    this.buttonEl.textContent = t;
    return this;
  }
  setCta(): this {
    this.buttonEl.classList.add("mod-cta");
    return this;
  }
  setWarning(): this {
    this.buttonEl.classList.add("mod-warning");
    return this;
  }
  setDisabled(d: boolean): this {
    this.buttonEl.disabled = d;
    return this;
  }
  setTooltip(t: string): this {
    this.buttonEl.setAttribute("aria-label", t);
    return this;
  }
  onClick(cb: (evt: MouseEvent) => unknown): this {
    this.buttonEl.addEventListener("click", (evt) => void cb(evt));
    return this;
  }
}

export class Setting {
  readonly settingEl: WithHelpers;
  readonly infoEl: WithHelpers;
  readonly nameEl: WithHelpers;
  readonly descEl: WithHelpers;
  readonly controlEl: WithHelpers;
  constructor(containerEl: HTMLElement) {
    this.settingEl = (containerEl as WithHelpers).createDiv({ cls: "setting-item" });
    this.infoEl = this.settingEl.createDiv({ cls: "setting-item-info" });
    this.nameEl = this.infoEl.createDiv({ cls: "setting-item-name" });
    this.descEl = this.infoEl.createDiv({ cls: "setting-item-description" });
    this.controlEl = this.settingEl.createDiv({ cls: "setting-item-control" });
  }
  setName(n: string): this {
    this.nameEl.textContent = n;
    return this;
  }
  setDesc(d: string): this {
    this.descEl.textContent = d;
    return this;
  }
  setHeading(): this {
    this.settingEl.classList.add("setting-item-heading");
    return this;
  }
  addText(cb: (c: TextComponent) => unknown): this {
    cb(new TextComponent(this.controlEl));
    return this;
  }
  addTextArea(cb: (c: TextAreaComponent) => unknown): this {
    cb(new TextAreaComponent(this.controlEl));
    return this;
  }
  addToggle(cb: (c: ToggleComponent) => unknown): this {
    cb(new ToggleComponent(this.controlEl));
    return this;
  }
  addDropdown(cb: (c: DropdownComponent) => unknown): this {
    cb(new DropdownComponent(this.controlEl));
    return this;
  }
  addButton(cb: (c: ButtonComponent) => unknown): this {
    cb(new ButtonComponent(this.controlEl));
    return this;
  }
}

export abstract class PluginSettingTab {
  readonly containerEl: WithHelpers;
  constructor(
    readonly app: App,
    readonly plugin: Plugin,
  ) {
    this.containerEl = el("div", "vertical-tab-content");
  }
  abstract display(): void;
  hide(): void {
    this.containerEl.empty();
  }
}

// ---------- Utilities ----------

/** As Obsidian's: the icon's SVG replaces whatever the element held. */
export function setIcon(parent: HTMLElement, iconId: string): void {
  parent.replaceChildren();
  const svg = doc().createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("class", `svg-icon lucide-${iconId}`);
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "16");
  svg.setAttribute("height", "16");
  const path = doc().createElementNS("http://www.w3.org/2000/svg", "circle");
  path.setAttribute("cx", "12");
  path.setAttribute("cy", "12");
  path.setAttribute("r", "8");
  svg.appendChild(path);
  parent.appendChild(svg);
}

/** As Obsidian's: which kind of leaf a click asks for (Ctrl/Cmd-click: a new tab). */
export const Keymap = {
  isModEvent(evt?: UIEvent | null): boolean | "tab" | "split" | "window" {
    const e = evt as MouseEvent | null | undefined;
    if (!e) return false;
    const mod = e.ctrlKey || e.metaKey;
    if (mod && e.altKey && e.shiftKey) return "window";
    if (mod && e.altKey) return "split";
    if (mod || e.button === 1) return "tab";
    return false;
  },
};

export interface Debouncer<T extends unknown[], V> {
  (...args: T): this;
  cancel(): this;
  run(): V | void;
}

/** Every debouncer with a call waiting, so a test can run them once the event it waits on has come. */
const waiting = new Set<{ run: () => unknown }>();

/**
 * Test only, not Obsidian's: runs at once every debounced call still waiting, as its quiet spell
 * ending would. A test that made a change runs what the change scheduled instead of waiting out
 * the plugin's quiet spells on the clock.
 */
export function runPendingDebouncers(): void {
  for (const d of [...waiting]) d.run();
}

export function debounce<T extends unknown[], V>(cb: (...args: T) => V, timeout = 0, resetTimer = false): Debouncer<T, V> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let pending: T | null = null;
  const fire = (): V | void => {
    timer = null;
    waiting.delete(d);
    if (!pending) return;
    const args = pending;
    pending = null;
    return cb(...args);
  };
  const d = function (this: unknown, ...args: T) {
    pending = args;
    waiting.add(d);
    if (timer && resetTimer) {
      clearTimeout(timer);
      timer = null;
    }
    if (!timer) timer = setTimeout(fire, timeout);
    return d;
  } as Debouncer<T, V>;
  d.cancel = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    pending = null;
    waiting.delete(d);
    return d;
  };
  d.run = () => {
    if (timer) clearTimeout(timer);
    return fire();
  };
  return d;
}
