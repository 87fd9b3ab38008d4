/** The Obsidian plugin: wires the core's index, snapshot and recall preview into the app. */

import { FileSystemAdapter, Notice, Plugin, debounce } from "obsidian";
import { lintInSlices, lintScope, recallHistoryInSlices, snapshotTime } from "../core/lint/lint";
import { yieldToUi } from "./yield-to-ui";
import type { Finding } from "../core/lint/types";
import { isCard, mergeConfig, type VaultMemoryConfig } from "../core/config";
import { writeFileAtomic } from "../core/io/atomic";
import { appendLog } from "../core/io/log";
import { vaultFiles } from "../core/paths";
import { IndexService } from "./index-service";
import { checkConnection, ConnectModal, pluginBridge, type ConnectContext, type ConnectionCheck } from "./connect";
import { DigestScheduler, type BridgeRunner } from "./digest-scheduler";
import { writeBridge } from "../core/install/install";
import { EnrichRunner } from "./enrich-command";
import { EmbedRunner } from "./embed-runner";
import { SyncRunner } from "./sync-command";
import { IMPORT_OFFERED_KEY, ImportOfferModal, ImportRunner } from "./import-command";
import { addRestoreCommand } from "./restore-command";
import { vectorsStatus } from "../core/embed/vectors-status";
import { join } from "node:path";
import { LINT_VIEW_TYPE, LintReportView } from "./lint-view";
import { LintNotes } from "./lint-notes";
import { metadataOf } from "./note-metadata";
import { PreviewRecallModal } from "./preview-modal";
import { QUEUE_VIEW_TYPE, QueueReviewView, type QueueViewHost } from "./queue-view";
import { listPending } from "../core/queue/queue-store";
import { VaultMemorySettingTab, type SettingsHost } from "./settings";
import { FirstRunModal, folderChoices, type FolderChoice } from "./first-run";
import { declineVaultSettings, deviceSettings, saveDeviceSettings, sharedSettings, TrustVaultSettingsModal, type DeviceSettings } from "./machine-settings";

const STATUS_POLL_MS = 5000;
const DIGEST_TICK_MS = 60_000;
const SYNC_TICK_MS = 60_000;
// Under this many notes the first build is quick enough that a progress notice would only flash.
const PROGRESS_FROM_NOTES = 500;

export default class VaultMemoryPlugin extends Plugin {
  settings: VaultMemoryConfig = mergeConfig(undefined);
  indexService: IndexService | null = null;
  private statusBar: HTMLElement | null = null;
  /** The running digest's latest progress line, shown in the status bar; "" when none runs. */
  private digestLine = "";
  digest: DigestScheduler | null = null;
  enrich: EnrichRunner | null = null;
  /** "Sync memory now", and the sync every few minutes this computer may ask for. */
  syncer: SyncRunner | null = null;
  /** "Import earlier Claude Code sessions". */
  importer: ImportRunner | null = null;
  /** Semantic recall's vectors, made after each full snapshot write when it is on. */
  embedder: EmbedRunner | null = null;
  vaultPath = "";
  /** No settings were saved in this vault yet: the memory folder is asked for once the layout is ready. */
  firstRun = false;
  /** data.json's own settings for what runs and where text goes, not used on this device until the person says so. */
  untrusted: DeviceSettings | undefined;
  /** What the last lint read, so the next one reads only the notes changed since. */
  readonly lintNotes = new LintNotes();

  async onload(): Promise<void> {
    await this.loadSettings();
    const adapter = this.app.vault.adapter;
    // The hook bridge reads the snapshot from disk; a vault that is not a folder has no place for it.
    if (!(adapter instanceof FileSystemAdapter)) {
      new Notice("Vault Memory needs a vault stored in a folder on this computer.");
      return;
    }
    this.vaultPath = adapter.getBasePath();
    this.embedder = new EmbedRunner(
      this.vaultPath,
      () => this.settings,
      () => this.bridgeRunner(),
      (m) => this.log(m),
    );
    const service = new IndexService(
      this.app,
      this.vaultPath,
      () => this.settings,
      (m) => this.log(m),
      () => this.embedder?.soon(),
    );
    this.indexService = service;

    this.addSettingTab(new VaultMemorySettingTab(this.app, this.settingsHost()));
    this.addCommand({ id: "rebuild-index", name: "Rebuild index", callback: () => void this.rebuild(true) });
    this.registerHoverLinkSource(LINT_VIEW_TYPE, { display: "Vault Memory lint report", defaultMod: true });
    this.registerHoverLinkSource(QUEUE_VIEW_TYPE, { display: "Vault Memory queue", defaultMod: true });
    this.registerView(
      LINT_VIEW_TYPE,
      (leaf) =>
        new LintReportView(
          leaf,
          () => this.lintNow(),
          () => this.settings.cards.relatedHeading,
        ),
    );
    this.registerView(QUEUE_VIEW_TYPE, (leaf) => new QueueReviewView(leaf, this.vaultPath, this.queueHost(service)));
    this.addRibbonIcon("inbox", "Open memory queue", () => void this.openQueue());
    this.addCommand({ id: "open-queue", name: "Open memory queue", callback: () => void this.openQueue() });
    this.addRunners();
    this.statusBar = this.addStatusBarItem();
    this.statusBar.addClass("vault-memory-status");
    this.statusBar.addEventListener("click", () => void this.openQueue());
    this.addCommand({ id: "open-lint-report", name: "Open lint report", callback: () => void this.openLintReport() });
    addRestoreCommand(this, this.app);
    this.addCommand({
      id: "preview-recall",
      name: "Preview recall",
      callback: () =>
        new PreviewRecallModal(
          this.app,
          (p) => service.preview(p),
          (p) => service.previewWithMeaning(p),
        ).open(),
    });
    this.app.workspace.onLayoutReady(() => this.startAfterLayout(service));
  }

  /** The runs that go on in processes of their own (digest, sync, import) and enrich, each with its command. */
  private addRunners(): void {
    this.digest = new DigestScheduler(
      this.vaultPath,
      () => this.settings,
      () => this.bridgeRunner(),
      {
        progress: (line) => {
          this.digestLine = line;
          this.updateStatusBar();
        },
        done: () => this.updateStatusBar(),
      },
    );
    this.addCommand({ id: "run-digest", name: "Run digest now", callback: () => void this.digest?.run() });
    this.enrich = new EnrichRunner(this.app, this.vaultPath, () => this.settings);
    this.addCommand({ id: "enrich-cards", name: "Enrich cards", callback: () => void this.enrich?.run() });
    this.addCommand({ id: "check-connection", name: "Check connection", callback: () => this.checkConnection() });
    this.syncer = new SyncRunner(
      this.vaultPath,
      () => this.settings,
      () => this.bridgeRunner(),
      (m) => this.log(m),
    );
    this.addCommand({ id: "sync-now", name: "Sync memory now", callback: () => void this.syncer?.run() });
    this.importer = new ImportRunner(
      this.vaultPath,
      () => this.settings,
      () => this.bridgeRunner(),
      (m) => this.log(m),
    );
    this.addCommand({
      id: "import-history",
      name: "Import earlier Claude Code sessions",
      callback: () => void this.importer?.run().then(() => this.updateStatusBar()),
    });
  }

  /** What the settings tab needs of the plugin. */
  private settingsHost(): SettingsHost & { plugin: Plugin } {
    const host = {
      plugin: this as Plugin,
      settings: this.settings,
      saveSettings: () => this.saveSettings(),
      connect: (mode: "install" | "uninstall") => new ConnectModal(this.app, this.connectContext, mode).open(),
      semanticStatus: () => vectorsStatus(vaultFiles.snapshot(this.vaultPath), this.settings.embed.model),
    };
    // A getter, since settings are replaced when they change on disk.
    Object.defineProperty(host, "settings", { get: () => this.settings });
    return host;
  }

  /** What the queue sidebar needs of the plugin. */
  private queueHost(service: IndexService): QueueViewHost {
    return {
      isCard: (path) => isCard(path, this.settings),
      settings: () => this.settings,
      index: () => service.source,
      indexed: () => service.idle(),
      digestOne: (id) => this.digest?.run([id]) ?? Promise.resolve(),
      checkConnection: () => {
        this.checkConnection();
      },
      similarWithMeaning: (text, meaning, limit) => service.similarWithMeaning(text, meaning, limit),
    };
  }

  /** Once the layout is ready: follow the vault's changes, build the index, and start the timers. */
  private startAfterLayout(service: IndexService): void {
    // Registered only now: Obsidian fires `create` for every file while it loads the vault.
    this.registerEvent(this.app.vault.on("create", (f) => service.onCreateOrModify(f)));
    this.registerEvent(this.app.vault.on("modify", (f) => service.onCreateOrModify(f)));
    this.registerEvent(this.app.vault.on("delete", (f) => service.onDelete(f)));
    this.registerEvent(this.app.vault.on("rename", (f, old) => service.onRename(f, old)));
    // Obsidian parses a note after it is saved: the card is read again once its parse is new too.
    this.registerEvent(this.app.metadataCache.on("changed", (f) => service.onCreateOrModify(f)));
    // An open lint report follows the vault, as the index does.
    const relint = debounce(() => this.refreshLintViews(), 2000, true);
    // A relint still waiting when the plugin unloads would render a view of a plugin that is gone.
    this.register(() => relint.cancel());
    for (const name of ["create", "modify", "delete", "rename"] as const) {
      this.registerEvent(this.app.vault.on(name as "modify", () => relint()));
    }
    if (this.firstRun) this.askMemoryFolder();
    else void this.rebuild(false);
    this.askTrust();
    this.updateStatusBar();
    this.registerInterval(window.setInterval(() => this.updateStatusBar(), STATUS_POLL_MS));
    // A minute's tick: the night's run, or a night missed while Obsidian was closed, starts on its own.
    void this.digest?.tick();
    this.registerInterval(window.setInterval(() => void this.digest?.tick(), DIGEST_TICK_MS));
    // With sync on and an interval set on this computer, a sync when none ended for that long.
    void this.syncer?.tick();
    this.registerInterval(window.setInterval(() => void this.syncer?.tick(), SYNC_TICK_MS));
  }

  onunload(): void {
    this.embedder?.soon.cancel();
    void this.indexService?.flush();
  }

  /**
   * Asks where the memory lives. A small vault is indexed whole meanwhile (what it gets if the
   * person decides later); a large one waits for the answer, so that a vault of thousands of other
   * notes is not indexed for nothing.
   */
  askMemoryFolder(): void {
    const files = this.app.vault.getMarkdownFiles();
    const choices = folderChoices(
      files.map((f) => f.path),
      (p) => this.app.vault.getAbstractFileByPath(p) !== null,
    );
    const waits = files.length >= PROGRESS_FROM_NOTES;
    if (!waits) void this.rebuild(false);
    new FirstRunModal(this.app, choices, (choice) => void this.useMemoryFolder(choice, waits)).open();
  }

  private async useMemoryFolder(choice: FolderChoice | undefined, waited: boolean): Promise<void> {
    if (!choice) {
      // Decided later: asked again at the next start; the whole vault is used until then.
      if (waited) await this.rebuild(false);
      return;
    }
    try {
      if (choice.create && !this.app.vault.getAbstractFileByPath(choice.folder)) await this.app.vault.createFolder(choice.folder);
    } catch (err) {
      new Notice(`Could not create ${choice.folder}/: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    this.settings.memoryFolder = choice.folder;
    this.firstRun = false;
    await this.saveSettings();
    new Notice(choice.folder === "" ? "Vault Memory uses the whole vault." : `Vault Memory uses ${choice.folder}/ as its memory folder.`);
  }

  /** Builds the index from scratch; shows progress for large vaults or when asked from the palette. */
  async rebuild(announce: boolean): Promise<void> {
    const service = this.indexService;
    if (!service) return;
    const total = this.app.vault.getMarkdownFiles().length;
    const notice = announce || total >= PROGRESS_FROM_NOTES ? new Notice("Vault Memory: indexing…", 0) : null;
    await service.rebuild(({ done, total: all }) => notice?.setMessage(`Vault Memory: indexing ${done} of ${all} notes…`));
    notice?.hide();
    if (announce) new Notice(`Vault Memory: indexed ${service.cardCount} cards.`);
  }

  /**
   * Lints the vault as Obsidian has it, with the hidden folder's snapshot and recall log. Only
   * notes changed since the last lint are read, parsed and scanned for secrets again; the rules
   * then run over all of them, since links make them depend on one another.
   */
  async lintNow(): Promise<Finding[]> {
    const { cards, text, scans } = await this.lintNotes.update(
      this.app.vault.getMarkdownFiles(),
      (f) => this.app.vault.cachedRead(f),
      (f) => metadataOf(this.app, f),
    );
    return lintInSlices(
      {
        cards,
        text,
        settings: this.settings.lint,
        snapshot: snapshotTime(this.vaultPath),
        recallLog: await recallHistoryInSlices(this.vaultPath, yieldToUi),
        secretScans: () => scans,
        scope: lintScope(this.settings),
      },
      yieldToUi,
    );
  }

  async openLintReport(): Promise<void> {
    const existing = this.app.workspace.getLeavesOfType(LINT_VIEW_TYPE)[0];
    const leaf = existing ?? this.app.workspace.getLeaf("tab");
    if (!existing) await leaf.setViewState({ type: LINT_VIEW_TYPE, active: true });
    await this.app.workspace.revealLeaf(leaf);
  }

  async openQueue(): Promise<void> {
    const existing = this.app.workspace.getLeavesOfType(QUEUE_VIEW_TYPE)[0];
    const leaf = existing ?? this.app.workspace.getRightLeaf(false);
    if (!leaf) return;
    if (!existing) await leaf.setViewState({ type: QUEUE_VIEW_TYPE, active: true });
    await this.app.workspace.revealLeaf(leaf);
  }

  /** "3 to review" in the status bar, or what the running digest is doing; empty when nothing waits. */
  updateStatusBar(): void {
    if (!this.statusBar || !this.vaultPath) return;
    if (this.digestLine) {
      this.statusBar.setText(`Digest: ${this.digestLine.trim().slice(0, 60)}`);
      this.statusBar.setAttr("aria-label", this.digestLine.trim());
      return;
    }
    const pending = listPending(this.vaultPath);
    // The imported backlog is counted apart: it is the digest's to work through, not a review waiting.
    const imported = pending.filter((e) => e.imported).length;
    const n = pending.length - imported;
    const text = [n > 0 ? `${n} to review` : "", imported > 0 ? `${imported} imported` : ""].filter(Boolean).join(" · ");
    this.statusBar.setText(text);
    this.statusBar.setAttr(
      "aria-label",
      [n > 0 ? `${n} conversation${n === 1 ? "" : "s"} wait in the memory queue` : "", imported > 0 ? `${imported} imported from before the install` : ""]
        .filter(Boolean)
        .join("; "),
    );
  }

  private refreshLintViews(): void {
    for (const leaf of this.app.workspace.getLeavesOfType(LINT_VIEW_TYPE)) {
      if (leaf.view instanceof LintReportView) void leaf.view.refresh();
    }
  }

  /** Where the plugin lives on disk; the bridge is written beside main.js. */
  get connectContext(): ConnectContext {
    return {
      vaultPath: this.vaultPath,
      pluginDir: join(this.vaultPath, this.manifest.dir ?? join(this.app.vault.configDir, "plugins", this.manifest.id)),
      afterConnect: () => this.offerImport(),
    };
  }

  /**
   * Once on this device, after Claude Code is connected: the sessions before the install can be
   * queued. Asked once whatever the answer; the command stays in the palette.
   */
  offerImport(): void {
    if (this.app.loadLocalStorage(IMPORT_OFFERED_KEY)) return;
    this.app.saveLocalStorage(IMPORT_OFFERED_KEY, new Date().toISOString());
    new ImportOfferModal(this.app, this.settings.digest.maxEntries, () => void this.importer?.run().then(() => this.updateStatusBar())).open();
  }

  /**
   * How the digest's, embed's and sync's processes are started: the plugin's own copy of the
   * bridge, kept current, run by Obsidian's Electron as plain Node, so no Node install is needed.
   */
  bridgeRunner(): BridgeRunner {
    const bridge = writeBridge(this.connectContext.pluginDir, pluginBridge(this.connectContext.pluginDir));
    return { node: process.execPath, bridge, env: { ...process.env, ELECTRON_RUN_AS_NODE: "1" } };
  }

  /** Runs the installed hook as Claude Code would and says how long it took and what it printed. */
  checkConnection(): ConnectionCheck {
    const sample = this.indexService?.sampleDescription() ?? "how do I use this vault";
    const r = checkConnection(this.connectContext, sample);
    const cards = (r.output.match(/^- /gm) ?? []).length;
    new Notice(
      r.ok
        ? `Hook answered in ${r.ms} ms; the test prompt "${sample.slice(0, 40)}" gets ${cards} card${cards === 1 ? "" : "s"}.`
        : `The hook did not answer: ${r.error}. Use "Connect Claude Code" in the settings.`,
    );
    return r;
  }

  /** Obsidian calls this when data.json changed on disk, e.g. synced from another machine. */
  async onExternalSettingsChange(): Promise<void> {
    await this.loadSettings();
    this.mirrorConfig();
    await this.rebuild(false);
  }

  async loadSettings(): Promise<void> {
    const problems: string[] = [];
    const raw: unknown = await this.loadData();
    // No data.json: the plugin was just enabled here. A vault set up before keeps its settings.
    this.firstRun = raw === null || raw === undefined;
    const adapter = this.app.vault.adapter;
    const vaultPath = adapter instanceof FileSystemAdapter ? adapter.getBasePath() : "";
    // What runs and where text goes is this device's own (machine-settings.ts); the rest is the vault's.
    const device = deviceSettings(this.app, raw, vaultPath, (m) => this.log(m));
    this.untrusted = device.untrusted.length > 0 ? device : undefined;
    this.settings = mergeConfig(device.raw, problems);
    for (const p of problems) this.log(`settings: ${p}`);
  }

  /** Asks, once the window is ready, whether data.json's own program or server may be used on this device. */
  private askTrust(): void {
    const pending = this.untrusted;
    if (!pending) return;
    new TrustVaultSettingsModal(this.app, pending.offered, pending.untrusted, (use) => {
      if (use === undefined) return; // asked again at the next start
      this.untrusted = undefined;
      if (!use) return declineVaultSettings(this.app, pending.offered);
      // They move: into this device's storage and the per-user file, and out of data.json.
      this.settings = mergeConfig({ ...(this.settings as unknown as Record<string, unknown>), ...mergeRooms(this.settings, pending.offered) });
      void this.saveSettings();
    }).open();
  }

  async saveSettings(): Promise<void> {
    await this.saveData(sharedSettings(this.settings));
    const problem = saveDeviceSettings(this.app, this.settings, this.vaultPath);
    if (problem) {
      this.log(problem);
      new Notice(`Vault Memory: ${problem}`);
    }
    this.mirrorConfig();
    // Thresholds are read from the snapshot by the hook, so it must be rewritten with them.
    await this.rebuild(false);
  }

  /** The bridge's `index` command runs without Obsidian and reads the same settings from here. */
  private mirrorConfig(): void {
    if (!this.vaultPath) return;
    try {
      writeFileAtomic(vaultFiles.config(this.vaultPath), JSON.stringify(sharedSettings(this.settings), null, 2) + "\n");
    } catch (err) {
      this.log(`could not write config.json: ${String(err)}`);
    }
  }

  private log(message: string): void {
    if (this.vaultPath) appendLog(vaultFiles.log(this.vaultPath), "plugin", message);
  }
}

/** `settings` with `offered`'s keys set in each room. */
function mergeRooms(settings: VaultMemoryConfig, offered: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [room, keys] of Object.entries(offered)) out[room] = { ...((settings as unknown as Record<string, object>)[room] ?? {}), ...(keys as object) };
  return out;
}
