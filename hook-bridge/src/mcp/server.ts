/** `mcp`: Vault Memory as an MCP server over stdio, so Claude can search, read and write the memory itself. */

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ErrorCode, type CallToolResult, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { parseArgs } from "../args";
import { findVault, vaultAdvice } from "../vault";
import { appendLog } from "../../../src/core/io/log";
import { vaultFiles } from "../../../src/core/paths";
import { escapeControl } from "../../../src/core/text/visible";
import { boundedLines, type TooLarge } from "./line-limit";
import { MAX_BODY_CHARS, MAX_RELATED, MAX_TAGS, MAX_TITLE_CHARS, WRITABLE_TYPES } from "../../../src/core/digest/write-now";
import { EDITABLE_FIELDS } from "../../../src/core/digest/edit-now";
import {
  DEFAULT_LIMIT,
  DEFAULT_RECENT_DAYS,
  MAX_CARD_HINT_CHARS,
  MAX_KEEP_CHARS,
  MAX_LIMIT,
  MAX_QUERY_CHARS,
  MAX_READ_CHARS,
  MAX_RECENT_DAYS,
  MemoryTools,
  type ToolAnswer,
} from "./memory-tools";
import { VERSION } from "../../../src/core/version";

const SEARCH_DESCRIPTION = `Search the person's long-term memory: markdown cards in their Obsidian vault about past decisions, fixes, gotchas, preferences and project facts, written from earlier Claude Code sessions. Use it before answering anything that may have come up before (why something was set up a certain way, a recurring error, how this person likes things done), and when the cards the prompt hook listed are not enough. The query is plain words, in any language the cards use: name the tool, error, file, project or decision; synonyms and word forms are matched. Cards of the current project come first. Returns up to \`limit\` cards (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}), best first, each with its path, name, type, project, last update, description and the question or words it matched. An empty result means the memory has nothing on it. Open a card with read_card before relying on it.`;

const READ_DESCRIPTION = `Read one memory card (its frontmatter and body), by the path search_memory gave (relative to the vault, e.g. debugging/launchd-path.md). A long card comes in pieces of ${MAX_READ_CHARS} characters; the answer then ends by naming the offset to read the next one from. Only cards in the memory can be read: paths outside the vault, hidden folders and links that lead elsewhere are refused. Cards are the person's notes; treat what they say as their record, and check it against the code when it matters.`;

const WRITE_DESCRIPTION = `Write something worth knowing in later sessions into the person's memory, as a card they can read and edit: a fix found after some effort (symptom, cause, fix), a decision made and its reason, a preference the person stated, a gotcha worth not rediscovering. Not what the code or its docs already say. Search first (search_memory): if a card on the subject exists, pass its path to add a dated section to it instead of writing a second card; the card's text stays as it is. A new card needs title, description (one line saying when the card helps), type and body (markdown); it goes in its type's folder, linked with the related cards or the most similar one. Write in the language of the conversation. Never include secrets, tokens or passwords: they are replaced by [REDACTED]. Answers with the path written; recall and search_memory find the card from the next prompt on.`;

const RECENT_DESCRIPTION = `List the memory cards written or changed in the last days (default ${DEFAULT_RECENT_DAYS}), newest first, each with its path, description, date, type and project: what the memory learned lately, e.g. when picking up work on a project. Cards of the current project (or \`project\`'s) and of no project, as search_memory; all_projects: true lists every project's.`;

const REMEMBER_DESCRIPTION = `Ask for something to be kept in the person's memory: a decision, fix, constraint or preference worth knowing in later sessions. Use it when the person asks you to remember something, or after settling something they will want next time. It does not write a card (write_card does, at once): it queues the text (with this session's conversation when it can be found) for the nightly digest, which turns it into a card or extends an existing one and never skips it. Secrets and <private> passages are removed first. Tell the person what the tool answered, including when it says nothing was kept.`;

/** Answers a request too large to read with JSON-RPC's "invalid request", and says why on stderr and in the log. */
function tooLarge(t: TooLarge, transport: StdioServerTransport, vault: string | undefined): void {
  const message = `Request too large: a line of more than ${t.limit} bytes (${t.limit >> 20} MB), the most this server reads per request; it was not read`;
  process.stderr.write(`vault-memory mcp: ${message}\n`);
  if (vault) appendLog(vaultFiles.log(vault), "mcp", message);
  // JSON-RPC answers a request whose id cannot be read with id null.
  void transport.send({ jsonrpc: "2.0", id: t.id, error: { code: ErrorCode.InvalidRequest, message } } as unknown as JSONRPCMessage);
}

/** Runs until the client closes stdin; resolves with the exit code. */
export async function runMcp(argv: readonly string[]): Promise<number> {
  const found = findVault(parseArgs(argv));
  const advice = "problem" in found ? vaultAdvice(found) : "";
  // stdout is the protocol; anything for people goes to stderr, which Claude Code keeps in its MCP log.
  if ("problem" in found) process.stderr.write(`${advice}\n`);
  const tools = new MemoryTools({ vault: found, advice });
  const server = new McpServer({ name: "vault-memory", version: VERSION });
  const answer = answerer("vault" in found ? found.vault : undefined);
  registerReadTools(server, tools, answer);
  registerWriteTools(server, tools, answer);
  registerEditTools(server, tools, answer);
  await serveStdio(server, "vault" in found ? found.vault : undefined);
  tools.close();
  await server.close().catch(() => undefined);
  return 0;
}

type Answerer = (run: () => ToolAnswer | Promise<ToolAnswer>) => Promise<CallToolResult>;

/** Runs a tool and turns its answer, or its failure (logged in the vault, when there is one), into MCP's. */
function answerer(vault: string | undefined): Answerer {
  return async (run) => {
    try {
      const a = await run();
      return { content: [{ type: "text" as const, text: a.text }], ...(a.isError ? { isError: true } : {}) };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (vault !== undefined) appendLog(vaultFiles.log(vault), "mcp", message);
      // An error's message may quote a path: one line, whatever the path holds.
      return { content: [{ type: "text" as const, text: `Vault Memory failed: ${escapeControl(message)}` }], isError: true };
    }
  };
}

// Bounds are checked by the tools themselves, so a bad value gets a sentence the model can act on
// rather than a schema dump; the schema only names the types and states the limits.

/** The tools that only read the memory: search_memory, read_card, recent_cards. */
function registerReadTools(server: McpServer, tools: MemoryTools, answer: Answerer): void {
  server.registerTool(
    "search_memory",
    {
      title: "Search memory",
      description: SEARCH_DESCRIPTION,
      inputSchema: {
        query: z.string().describe(`What to look for, in plain words (at most ${MAX_QUERY_CHARS} characters).`),
        limit: z.number().optional().describe(`How many cards at most, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}).`),
        project: z.string().optional().describe("The project to search in; defaults to the current project. Its cards and those of no project are searched."),
        all_projects: z
          .boolean()
          .optional()
          .describe("Search every project's cards too (default false: another project's cards only when the query names that project)."),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) => answer(() => tools.search(input)),
  );
  server.registerTool(
    "read_card",
    {
      title: "Read memory card",
      description: READ_DESCRIPTION,
      inputSchema: {
        path: z.string().describe("The card's path as search_memory listed it, relative to the vault."),
        offset: z
          .number()
          .optional()
          .describe("Where to start, in characters (default 0): the offset the previous answer named, to read a long card's next piece."),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) => answer(() => tools.read(input)),
  );
  server.registerTool(
    "recent_cards",
    {
      title: "Recent memory cards",
      description: RECENT_DESCRIPTION,
      inputSchema: {
        days: z.number().optional().describe(`How many days back, 1 to ${MAX_RECENT_DAYS} (default ${DEFAULT_RECENT_DAYS}).`),
        project: z.string().optional().describe("The project to list; defaults to the current project. Its cards and those of no project are listed."),
        all_projects: z.boolean().optional().describe("List every project's cards (default false)."),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) => answer(() => tools.recent(input)),
  );
}

const EDIT_DESCRIPTION = `Correct one card of the person's memory in place: replace the text of one section (by its heading, as read_card shows it) or set one property (${EDITABLE_FIELDS.join(", ")}). Use it when a card is wrong or out of date, not to add to it (write_card with path adds a dated section). Read the card with read_card first and pass the hash it shows: an edit of a card that changed since is refused, so read it again. A card without a source property is the person's own: edit it only when the person asked for this change, and say so with person_asked. Text is checked as write_card's is (secrets replaced, no link out of the vault, no level-1 or level-2 heading inside a section). Answers with what changed and the new hash.`;

const ARCHIVE_DESCRIPTION = `Retire a card that is wrong, replaced or no longer true: its status becomes archived, with the date and your reason, and recall stops showing it. Nothing is deleted; the person can restore it by removing the status. Give a one-line reason. A card without a source property is the person's own: archive it only when the person asked, with person_asked. Pass the hash read_card showed to make sure it is the card as you read it.`;

/** The tools that write: write_card at once, remember through the queue. */
function registerWriteTools(server: McpServer, tools: MemoryTools, answer: Answerer): void {
  server.registerTool(
    "write_card",
    {
      title: "Write memory card",
      description: WRITE_DESCRIPTION,
      inputSchema: {
        title: z
          .string()
          .optional()
          .describe(`The card's name, one line (at most ${MAX_TITLE_CHARS} characters); for a new card. With path, it heads the added section.`),
        description: z.string().optional().describe("One line that says when the card helps; for a new card."),
        type: z
          .string()
          .optional()
          .describe(
            `For a new card, one of ${WRITABLE_TYPES.join(", ")}: debugging for a problem and its fix, project for a project's decisions and facts, feedback for how the person likes things done, reference for commands, settings and facts, user for the person, teaching for explanations.`,
          ),
        body: z
          .string()
          .describe(`Markdown (at most ${MAX_BODY_CHARS} characters). A new card may use ## sections; a section added with path uses ### and below.`),
        tags: z.array(z.string()).optional().describe(`Short lower-case words (at most ${MAX_TAGS}); for a new card.`),
        project: z
          .string()
          .optional()
          .describe(
            'For a new card: the project it belongs to; defaults to the current project. "" for a card that holds in every project (a preference, a general gotcha): a card of one project is not recalled in others.',
          ),
        related: z.array(z.string()).optional().describe(`Names or paths of existing cards to link to (at most ${MAX_RELATED}); those cards are not changed.`),
        path: z.string().optional().describe("An existing card to extend, as search_memory listed it; leave it out to write a new card."),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (input) => answer(() => tools.writeCard(input)),
  );
  server.registerTool(
    "remember",
    {
      title: "Remember",
      description: REMEMBER_DESCRIPTION,
      inputSchema: {
        text: z.string().describe(`What to keep, self-contained, in a sentence or a short paragraph (at most ${MAX_KEEP_CHARS} characters).`),
        card: z.string().optional().describe(`An existing card it belongs in, by name or path, if there is one (at most ${MAX_CARD_HINT_CHARS} characters).`),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (input) => answer(() => tools.remember(input)),
  );
}

/** The tools that correct and retire a card: edit_card, archive_card. */
function registerEditTools(server: McpServer, tools: MemoryTools, answer: Answerer): void {
  server.registerTool(
    "edit_card",
    {
      title: "Edit memory card",
      description: EDIT_DESCRIPTION,
      inputSchema: {
        path: z.string().describe("The card, as search_memory or read_card named it."),
        hash: z.string().describe("The hash read_card showed for the card as you read it."),
        section: z.string().optional().describe("A heading of the card whose text is replaced (e.g. Fix); give text with it."),
        text: z.string().optional().describe(`The section's new text, markdown without its heading (at most ${MAX_BODY_CHARS} characters).`),
        field: z
          .string()
          .optional()
          .describe(`Or a property to set: ${EDITABLE_FIELDS.join(", ")}; give value with it.`),
        value: z
          .union([z.string(), z.array(z.string())])
          .optional()
          .describe("The property's new value: one line, or a list of words for tags and aliases."),
        person_asked: z.boolean().optional().describe("True when the person asked for this change: required for a card they wrote themselves."),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    (input) => answer(() => tools.editCard(input)),
  );
  server.registerTool(
    "archive_card",
    {
      title: "Archive memory card",
      description: ARCHIVE_DESCRIPTION,
      inputSchema: {
        path: z.string().describe("The card, as search_memory or read_card named it."),
        reason: z.string().describe("Why it is retired, in one line (at most 300 characters)."),
        hash: z.string().optional().describe("The hash read_card showed, to make sure the card is as you read it."),
        person_asked: z.boolean().optional().describe("True when the person asked for this: required for a card they wrote themselves."),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (input) => answer(() => tools.archiveCard(input)),
  );
}

/** Serves the protocol on stdin and stdout until the client goes away. */
async function serveStdio(server: McpServer, vault: string | undefined): Promise<void> {
  // Stdin through a bound on each line: one over it is answered with an error, not held, and the
  // server goes on (the transport alone would hold 10 MB of it, then close).
  const input = boundedLines((t) => tooLarge(t, transport, vault));
  process.stdin.pipe(input);
  const transport = new StdioServerTransport(input, process.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    // The SDK's transport does not notice a closed stdin by itself; the client going away ends the server.
    process.stdin.once("end", () => resolve());
    process.stdin.once("close", () => resolve());
  });
  await server.connect(transport);
  await closed;
}
