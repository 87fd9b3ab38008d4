/**
 * The MCP server's tools, in the order it registers them: the one list that install, `mcp --help`
 * and the server itself use (a test holds the server to it). A file of its own, so that the
 * usage text, which the prompt hook carries, does not carry install.
 */
export const MCP_TOOLS = ["search_memory", "read_card", "recent_cards", "write_card", "remember", "edit_card", "archive_card"] as const;
