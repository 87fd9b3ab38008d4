/** The settings tab, and the settings' round trip to data.json and the bridge's config.json. */

import { App, PluginSettingTab, Setting } from "obsidian";
import type { VaultMemoryConfig } from "../core/config";
import type { ThresholdRules } from "../core/index/scorer";

export interface SettingsHost {
  settings: VaultMemoryConfig;
  saveSettings(): Promise<void>;
}

export class VaultMemorySettingTab extends PluginSettingTab {
  constructor(
    app: App,
    private readonly host: SettingsHost & { plugin: import("obsidian").Plugin },
  ) {
    super(app, host.plugin);
  }

  display(): void {
    const { containerEl } = this;
    containerEl.empty();
    const s = this.host.settings;

    new Setting(containerEl)
      .setName("Memory folder")
      .setDesc("Only notes in this folder are recalled. Leave empty to use the whole vault.")
      .addText((text) =>
        text.setValue(s.memoryFolder).onChange(async (value) => {
          s.memoryFolder = value.trim();
          await this.host.saveSettings();
        }),
      );

    new Setting(containerEl).setName("Recall").setHeading();
    this.numberSetting("Minimum score", "Inject nothing when the best card scores under this.", "minScore");
    this.numberSetting("Share of the top score", "Keep only cards scoring at least this share of the best card (0 to 1).", "relativeToTop");
    this.numberSetting("Minimum matched words", "A card must match at least this many different words of the prompt.", "minMatchedTerms");
    this.numberSetting("Maximum cards", "At most this many cards per prompt.", "maxCards");
    new Setting(containerEl)
      .setName("Character cap")
      .setDesc("Hard limit on what recall adds to a prompt.")
      .addText((text) =>
        text.setValue(String(s.recall.maxChars)).onChange(async (value) => {
          const n = Number(value);
          if (Number.isFinite(n) && n > 0) {
            s.recall.maxChars = n;
            await this.host.saveSettings();
          }
        }),
      );
  }

  private numberSetting(name: string, desc: string, key: keyof ThresholdRules): void {
    const t = this.host.settings.recall.thresholds;
    new Setting(this.containerEl)
      .setName(name)
      .setDesc(desc)
      .addText((text) =>
        text.setValue(String(t[key])).onChange(async (value) => {
          const n = Number(value);
          if (Number.isFinite(n) && n >= 0) {
            t[key] = n;
            await this.host.saveSettings();
          }
        }),
      );
  }
}
