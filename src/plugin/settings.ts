/** The settings tab; settings are saved to data.json and mirrored to the bridge's config.json. */

import { MAX_ARCHIVED_PER_NIGHT } from "../core/digest/retire";
import { TIME_OF_DAY } from "../core/digest/schedule";
import { isRelatedHeadingSetting } from "../core/card/related-heading";
import { App, Modal, PluginSettingTab, Setting, debounce, type Plugin, type TextComponent } from "obsidian";
import type { VaultMemoryConfig } from "../core/config";
import type { ThresholdRules } from "../core/index/scorer";
import { RULES, ruleInfo } from "../core/lint/rules";
import { LANGUAGE_TAG, MAX_QUESTIONS } from "../core/enrich/settings";
import { endpointProblem, SUGGESTED_PULL } from "../core/embed/settings";

export interface SettingsHost {
  settings: VaultMemoryConfig;
  saveSettings(): Promise<void>;
  connect(mode: "install" | "uninstall"): void;
  /** Semantic recall's vectors and calibration in a sentence (see embed/vectors-status.ts). */
  semanticStatus?(): Promise<string>;
}

export class VaultMemorySettingTab extends PluginSettingTab {
  // Typing in a field saves once the typing stops: a save rewrites the snapshot.
  private readonly saveSoon = debounce(() => void this.host.saveSettings(), 800, true);

  constructor(
    app: App,
    private readonly host: SettingsHost & { plugin: Plugin },
  ) {
    super(app, host.plugin);
  }

  display(): void {
    const { containerEl } = this;
    containerEl.empty();
    const s = this.host.settings;

    new Setting(containerEl)
      .setName("Claude Code")
      .setDesc("Register the recall, queue and remind hooks in ~/.claude/settings.json. You see the exact change first.")
      .addButton((b) =>
        b
          .setButtonText("Connect Claude Code")
          .setCta()
          .onClick(() => this.host.connect("install")),
      )
      .addButton((b) => b.setButtonText("Disconnect").onClick(() => this.host.connect("uninstall")));

    this.text("Memory folder", "Only notes in this folder are recalled. Leave empty to use the whole vault.", s.memoryFolder, (v) => {
      s.memoryFolder = v.trim();
    });

    this.recallSection();
    this.queueSection();
    this.digestSection();
    this.syncSection();
    this.hintsSection();
    this.semantic();
    this.lintSection();
  }

  /** Recall: the thresholds, the cap, the session brief, synonyms and the related heading. */
  private recallSection(): void {
    const { containerEl } = this;
    const s = this.host.settings;

    new Setting(containerEl).setName("Recall").setHeading();
    this.threshold(
      "Minimum score",
      "Inject nothing when the best card scores under this (for a vault of about 260 cards; it scales with the vault).",
      "minScore",
    );
    this.threshold("Share of the top score", "Keep only cards scoring at least this share of the best card (0 to 1).", "relativeToTop");
    this.threshold("Minimum matched words", "A card must match at least this many different words of the prompt.", "minMatchedTerms");
    this.threshold(
      "Words the card is about",
      "Show a card only when prompt words found in its name, description, tags, headings or hints weigh at least this many rare words. 0 turns it off; 1.2 keeps quieter on prompts no card answers, and misses more.",
      "minAboutWords",
    );
    this.threshold("Maximum cards", "At most this many cards per prompt.", "maxCards");
    this.number("Character cap", "Hard limit on what recall adds to a prompt.", s.recall.maxChars, (n) => (s.recall.maxChars = n));
    new Setting(containerEl)
      .setName("Session brief")
      .setDesc(
        "When a Claude Code session starts, tell Claude what the memory holds for its project: the most used cards, one line each, within 1,500 characters.",
      )
      .addToggle((t) =>
        t.setValue(s.brief.enabled).onChange(async (on) => {
          s.brief.enabled = on;
          await this.host.saveSettings();
        }),
      );
    this.text(
      "Synonyms note",
      "A note of words that mean the same, one group per line, comma-separated. The nightly digest adds the words you used. Leave empty for none.",
      s.index.synonymsNote,
      (v) => {
        s.index.synonymsNote = v.trim();
      },
    );
    this.text(
      "Related section heading",
      "The heading new cards' related links go under, such as ## Related. Leave empty to follow the heading most of your cards already use.",
      s.cards.relatedHeading,
      (v) => {
        if (isRelatedHeadingSetting(v.trim())) s.cards.relatedHeading = v.trim();
      },
    );
  }

  /** Which conversations the Stop hook queues. */
  private queueSection(): void {
    const { containerEl } = this;
    const s = this.host.settings;

    new Setting(containerEl).setName("Queue").setHeading();
    this.number(
      "Minimum prompts",
      "Queue a conversation once you have asked at least this many real prompts.",
      s.queue.minPrompts,
      (n) => (s.queue.minPrompts = n),
    );
    this.number("Minimum reply length", "…and Claude has written at least this many characters.", s.queue.minChars, (n) => (s.queue.minChars = n));
    this.text(
      "Excluded projects",
      "Comma-separated globs matched against the project name or folder, e.g. client-*, /Users/me/private/*.",
      s.queue.excludeProjects.join(", "),
      (v) => {
        s.queue.excludeProjects = v
          .split(",")
          .map((x) => x.trim())
          .filter(Boolean);
      },
    );
  }

  /** The nightly digest: when, with which command, within what limits. */
  private digestSection(): void {
    const { containerEl } = this;
    const s = this.host.settings;

    new Setting(containerEl).setName("Nightly digest").setHeading();
    this.text("Time", "When the digest runs each night (HH:MM). A night missed while Obsidian was closed runs at the next start.", s.digest.time, (v) => {
      if (TIME_OF_DAY.test(v.trim())) s.digest.time = v.trim();
    });
    this.text(
      "LLM command",
      "The command and its flags; the prompt is sent on standard input. Kept on this computer only, like the binary, model and report command: a synced vault never decides what runs here.",
      s.digest.command.join(" "),
      (v) => {
        const parts = v.trim().split(/\s+/).filter(Boolean);
        if (parts.length > 0) s.digest.command = parts;
      },
    );
    this.text("LLM binary path", "Absolute path to the binary, if it is not on your login shell's path.", s.digest.binary, (v) => (s.digest.binary = v.trim()));
    this.text("Model", "Passed as --model; leave empty for the command's default.", s.digest.model, (v) => (s.digest.model = v.trim()));
    this.number("Entries per night", "At most this many queued conversations per run.", s.digest.maxEntries, (n) => (s.digest.maxEntries = n));
    this.number("LLM calls per night", "At most this many calls per run.", s.digest.maxCalls, (n) => (s.digest.maxCalls = n));
    this.number("Timeout per call", "Seconds before a call is stopped, with everything it started.", s.digest.timeoutSec, (n) => (s.digest.timeoutSec = n));
    this.text(
      "Report command",
      "Optional: a shell command the daily report is piped to, e.g. mail -s report me@example.com.",
      s.digest.reportCommand,
      (v) => (s.digest.reportCommand = v.trim()),
    );
    new Setting(this.containerEl)
      .setName("Merge fragment cards")
      .setDesc(
        "Once a month, within the night's LLM calls, merge short cards Vault Memory wrote on one subject of one project into one card that keeps every fact and link; the others stay, marked merged, linking to it. Listed in the report.",
      )
      .addToggle((t) =>
        t.setValue(s.digest.consolidate).onChange(async (on) => {
          s.digest.consolidate = on;
          await this.host.saveSettings();
        }),
      );
    new Setting(this.containerEl)
      .setName("Archive unused cards")
      .setDesc(
        `Each night, archive up to ${MAX_ARCHIVED_PER_NIGHT} cards that no prompt recalled, nothing read and no card linked to for ${s.lint.unusedDays} days, as this computer's recall log tells. Archived cards stay in the vault, are listed in the report, and come back with the command Restore archived card.`,
      )
      .addToggle((t) =>
        t.setValue(s.digest.archiveUnused).onChange(async (on) => {
          s.digest.archiveUnused = on;
          await this.host.saveSettings();
        }),
      );
  }

  /** Sync with this computer's others through the vault's git remote: this computer's settings only. */
  private syncSection(): void {
    const { containerEl } = this;
    const s = this.host.settings.sync;

    new Setting(containerEl)
      .setName("Sync")
      .setDesc(
        "One memory on several computers: the vault is a Git repository with a private remote of yours, and a sync commits what changed here, merges what the others pushed, and pushes. Vault Memory's guide to several machines says how to set it up.",
      )
      .setHeading();
    new Setting(containerEl)
      .setName("Sync with other computers")
      .setDesc("Before and after each night's digest, and when a Claude Code session starts (hourly at most). This computer only.")
      .addToggle((t) =>
        t.setValue(s.enabled).onChange(async (on) => {
          s.enabled = on;
          await this.host.saveSettings();
        }),
      );
    this.number(
      "Sync interval",
      "With sync on, also every this many minutes while Obsidian is open. 0 turns it off. This computer only.",
      s.intervalMinutes,
      (n) => (s.intervalMinutes = Math.floor(n)),
    );
  }

  /** Recall hints: how many cards the digest writes questions for. */
  private hintsSection(): void {
    const { containerEl } = this;
    const s = this.host.settings;

    new Setting(containerEl).setName("Recall hints").setHeading();
    this.number(
      "Cards enriched per night",
      "After the queue, the nightly digest writes the questions this many cards answer, for cards that have none. 0 turns it off.",
      s.enrich.perNight,
      (n) => (s.enrich.perNight = Math.floor(n)),
    );
    this.number("Cards per call", "How many cards each call to the LLM command writes questions for (1 to 20).", s.enrich.batchSize, (n) => {
      if (Number.isInteger(n) && n >= 1 && n <= 20) s.enrich.batchSize = n;
    });
    this.number("Questions per card", `How many questions to ask for per card (1 to ${MAX_QUESTIONS}).`, s.enrich.questionsPerCard, (n) => {
      if (Number.isInteger(n) && n >= 1 && n <= MAX_QUESTIONS) s.enrich.questionsPerCard = n;
    });
    this.text(
      "Also in language",
      "Questions are written in each card's language. Name one more language you ask in, such as en or zh-TW, to get some in it too. Leave empty for none.",
      s.enrich.alsoLanguage,
      (v) => {
        if (LANGUAGE_TAG.test(v.trim())) s.enrich.alsoLanguage = v.trim();
      },
    );
  }

  /** Lint rules, each on or off. */
  private lintSection(): void {
    const { containerEl } = this;
    const s = this.host.settings;
    const save = () => this.host.saveSettings();

    new Setting(containerEl).setName("Lint rules").setHeading();
    for (const id of Object.keys(RULES)) {
      const info = ruleInfo(id);
      new Setting(containerEl)
        .setName(info.title)
        .setDesc(info.description)
        .addToggle((t) =>
          t.setValue(!s.lint.disabled.includes(id)).onChange(async (on) => {
            s.lint.disabled = on ? s.lint.disabled.filter((x) => x !== id) : [...new Set([...s.lint.disabled, id])];
            await save();
          }),
        );
    }
  }

  /** Semantic recall: off unless turned on; a server on another computer only once confirmed. */
  private semantic(): void {
    const e = this.host.settings.embed;
    new Setting(this.containerEl)
      .setName("Semantic recall")
      .setDesc(`Also find cards by meaning, with an embedding model you run, such as Ollama (${SUGGESTED_PULL}). Off, recall is exactly word matching.`)
      .setHeading();
    new Setting(this.containerEl)
      .setName("Use semantic recall")
      .setDesc("Cards are embedded after each full index; each prompt asks the server for its vector, within the time below.")
      .addToggle((t) =>
        t.setValue(e.enabled).onChange(async (on) => {
          e.enabled = on;
          await this.host.saveSettings();
        }),
      );
    new Setting(this.containerEl)
      .setName("Server")
      .setDesc("The kind of server: Ollama, or one that speaks the OpenAI embeddings API.")
      .addDropdown((d) =>
        d
          .addOption("ollama", "Ollama")
          .addOption("openai", "OpenAI-compatible")
          .setValue(e.provider)
          .onChange((v) => {
            e.provider = v === "openai" ? "openai" : "ollama";
            this.saveSoon();
          }),
      );
    const remote = new Setting(this.containerEl).setName("Allow a server on another computer").setDesc("");
    const showRemote = (): void => {
      const problem = endpointProblem(e.url, false);
      remote.settingEl.toggleClass("vault-memory-hidden", problem === "" || !/not this computer/.test(problem));
      remote.setDesc(`Prompts and the text of cards would be sent to ${hostOf(e.url)}. Only turn this on for a server you trust.`);
    };
    this.text(
      "Server address",
      "Only this address is ever contacted. Kept on this computer only: a synced vault never decides where your prompts go.",
      e.url,
      (v) => {
        if (v.trim() !== "" && /^https?:\/\//.test(v.trim())) e.url = v.trim();
        showRemote();
      },
    );
    this.containerEl.appendChild(remote.settingEl);
    remote.addToggle((t) =>
      t.setValue(e.allowRemote).onChange((on) => {
        if (!on) {
          e.allowRemote = false;
          this.saveSoon();
          return;
        }
        new ConfirmRemoteModal(this.app, hostOf(e.url), (yes) => {
          e.allowRemote = yes;
          t.setValue(yes);
          this.saveSoon();
        }).open();
      }),
    );
    showRemote();
    this.text("Model", "The embedding model's name on that server.", e.model, (v) => {
      if (v.trim() !== "") e.model = v.trim();
    });
    const status = new Setting(this.containerEl).setName("Status").setDesc(e.enabled ? "Checking…" : "Off.");
    if (e.enabled && this.host.semanticStatus) {
      void this.host.semanticStatus().then(
        (said) => status.setDesc(said),
        (err: unknown) => status.setDesc(`Could not read the vectors: ${err instanceof Error ? err.message : String(err)}`),
      );
    }
    this.number(
      "Time for each prompt",
      "Milliseconds the prompt hook waits for the prompt's vector before it answers from words alone (10 to 5000).",
      e.budgetMs,
      (n) => {
        if (n >= 10 && n <= 5000) e.budgetMs = n;
      },
    );
  }

  private text(name: string, desc: string, value: string, set: (v: string) => void): TextComponent {
    let field!: TextComponent;
    new Setting(this.containerEl)
      .setName(name)
      .setDesc(desc)
      .addText((t) => {
        field = t;
        t.setValue(value).onChange((v) => {
          set(v);
          this.saveSoon();
        });
      });
    return field;
  }

  /** A number field: the browser's own number input, so a letter cannot be typed into it. */
  private number(name: string, desc: string, value: number, set: (n: number) => void): void {
    const field = this.text(name, desc, String(value), (v) => {
      const n = Number(v);
      if (v.trim() !== "" && Number.isFinite(n) && n >= 0) set(n);
    });
    field.inputEl.type = "number";
    field.inputEl.min = "0";
    field.inputEl.step = "any";
  }

  private threshold(name: string, desc: string, key: keyof ThresholdRules): void {
    const t = this.host.settings.recall.thresholds;
    this.number(name, desc, t[key], (n) => (t[key] = n));
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** Asks before prompts and cards may go to a server that is not this computer. */
class ConfirmRemoteModal extends Modal {
  private answered = false;

  constructor(
    app: App,
    private readonly host: string,
    private readonly answer: (yes: boolean) => void,
  ) {
    super(app);
  }

  onOpen(): void {
    this.setTitle("Send prompts to another computer?");
    this.contentEl.createEl("p", {
      text: `With this on, every prompt you write to Claude Code (not chit-chat) and the text of your cards are sent to ${this.host} to be embedded. Private blocks and secrets are taken out first.`,
    });
    new Setting(this.contentEl)
      .addButton((b) => b.setButtonText("Cancel").onClick(() => this.close()))
      .addButton((b) =>
        b
          .setButtonText(`Allow ${this.host}`)
          .setWarning()
          .onClick(() => {
            this.answered = true;
            this.answer(true);
            this.close();
          }),
      );
  }

  onClose(): void {
    this.contentEl.empty();
    if (!this.answered) this.answer(false);
  }
}
