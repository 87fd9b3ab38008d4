/**
 * This device's settings for what runs and where text goes (see core/machine-config.ts): kept in
 * Obsidian's per-device storage and the per-user file the bridge reads, never in data.json or the
 * vault's config.json, which sync to every device and person the vault reaches.
 */

import { Modal, Setting, type App } from "obsidian";
import { escapeControl } from "../core/text/visible";
import { defaultConfig } from "../core/config";
import {
  ignoredVaultKeys,
  machineKeysOf,
  overlay,
  readSettingsFile,
  saveUserSettings,
  userConfigPath,
  userSettingsFor,
  withoutMachineKeys,
} from "../core/machine-config";

type Raw = Record<string, unknown>;

/** The key in Obsidian's per-device storage (which Obsidian keeps apart for each vault). */
export const MACHINE_STORAGE_KEY = "vault-memory-machine";
/** The vault's own values the person chose not to use on this device, so they are not asked about again. */
const DECLINED_STORAGE_KEY = "vault-memory-declined";

const isObject = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

export interface DeviceSettings {
  /** What the plugin runs with: the vault's settings, this device's machine keys over them. */
  raw: Raw;
  /** Machine keys data.json holds that are not in use here (an older release kept them there, or another device wrote them), as "room.key". */
  untrusted: string[];
  /** Those values, to use if the person confirms. */
  offered: Raw;
}

/**
 * `saved`: data.json's content. Machine keys come from the per-user file, which the bridge reads
 * too (so a `trust` or a hand edit in the terminal shows here); this device's storage stands in
 * when that file cannot be read; else the defaults.
 */
export function deviceSettings(app: App, saved: unknown, vaultPath: string, log: (m: string) => void): DeviceSettings {
  const vaultRaw = isObject(saved) ? saved : {};
  let machine: unknown;
  if (vaultPath) {
    try {
      machine = machineKeysOf(userSettingsFor(readSettingsFile(userConfigPath(), { private: true }), vaultPath));
    } catch (err) {
      log(`settings: ${(err as Error).message}`);
    }
  }
  if (!isObject(machine)) machine = app.loadLocalStorage(MACHINE_STORAGE_KEY) ?? {};
  if (!isObject(machine)) machine = {};
  const raw = overlay(withoutMachineKeys(vaultRaw), machineKeysOf(machine as Raw));
  const offered = machineKeysOf(vaultRaw);
  const declined = app.loadLocalStorage(DECLINED_STORAGE_KEY) as unknown;
  const untrusted = JSON.stringify(declined) === JSON.stringify(offered) ? [] : ignoredVaultKeys(vaultRaw, raw);
  return { raw, untrusted, offered };
}

/** Saves this device's machine keys from `settings`: per-device storage, and the per-user file for the bridge. Returns a problem, or "". */
export function saveDeviceSettings(app: App, settings: object, vaultPath: string): string {
  const machine = machineKeysOf(settings as Raw);
  app.saveLocalStorage(MACHINE_STORAGE_KEY, machine);
  if (!vaultPath) return "";
  try {
    // Only what differs from the file's own top level (or the defaults), so a value set there for
    // every vault is not shadowed by this vault's copy of it.
    saveUserSettings(userConfigPath(), vaultPath, machine, machineKeysOf(defaultConfig() as unknown as Raw));
    return "";
  } catch (err) {
    return `could not save this computer's settings to ${userConfigPath()}: ${(err as Error).message}`;
  }
}

/** What may go into data.json and the vault's config.json. */
export function sharedSettings(settings: object): Raw {
  return withoutMachineKeys(settings as Raw);
}

/** Remembers that the person chose not to use these values of the vault's on this device. */
export function declineVaultSettings(app: App, offered: Raw): void {
  app.saveLocalStorage(DECLINED_STORAGE_KEY, offered);
}

/** Asks before this device runs what the vault's settings name, or sends text where they say. */
export class TrustVaultSettingsModal extends Modal {
  private answered = false;

  constructor(
    app: App,
    private readonly offered: Raw,
    private readonly keys: readonly string[],
    private readonly decide: (use: boolean | undefined) => void,
  ) {
    super(app);
  }

  onOpen(): void {
    const { contentEl } = this;
    this.setTitle("Use this vault's settings on this computer?");
    contentEl.createEl("p", {
      text: "This vault's saved settings name a program to run or a server to send your prompts to. They may have been written on another computer or by someone else who shares the vault, so Vault Memory uses nothing of them here until you say so.",
    });
    const list = contentEl.createEl("ul");
    for (const key of this.keys) {
      const [room, name] = key.split(".");
      const value = (this.offered[room] as Raw | undefined)?.[name];
      list.createEl("li", { text: `${key}: ${escapeControl(JSON.stringify(value))}` });
    }
    contentEl.createEl("p", {
      text: "Until then the digest runs its default LLM command and semantic recall stays off on this computer. You can change either in the settings at any time.",
    });
    new Setting(contentEl)
      .addButton((b) =>
        b.setButtonText("Not on this computer").onClick(() => {
          this.answered = true;
          this.close();
          this.decide(false);
        }),
      )
      .addButton((b) =>
        b
          .setButtonText("Use them here")
          .setWarning()
          .onClick(() => {
            this.answered = true;
            this.close();
            this.decide(true);
          }),
      );
  }

  onClose(): void {
    this.contentEl.empty();
    if (!this.answered) this.decide(undefined);
  }
}
