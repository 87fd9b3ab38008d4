/** A small stand-in for the Anthropic Messages API on 127.0.0.1: canned streamed replies, recorded requests. */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A tool call the stand-in makes instead of answering, as a model trying to act would. */
export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
}

export interface Stub {
  url: string;
  /** Raw bodies of every POST to /v1/messages, in order. */
  requests: string[];
  /** What the next replies say (text, or tool calls); a function can vary it by request. */
  reply: (body: string) => string | ToolCall[];
  /** Ways to misbehave, by request: answer late, or answer with an API error. */
  behave: (body: string) => { delayMs?: number; status?: number; errorMessage?: string } | undefined;
  close(): Promise<void>;
}

let calls = 0;

function sse(res: ServerResponse, reply: string | ToolCall[]): void {
  const blocks: [string, unknown][] =
    typeof reply === "string"
      ? [
          ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
          ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: reply } }],
          ["content_block_stop", { type: "content_block_stop", index: 0 }],
        ]
      : reply.flatMap((call, index): [string, unknown][] => [
          [
            "content_block_start",
            { type: "content_block_start", index, content_block: { type: "tool_use", id: `toolu_stub_${++calls}`, name: call.name, input: {} } },
          ],
          ["content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(call.input) } }],
          ["content_block_stop", { type: "content_block_stop", index }],
        ]);
  const events: [string, unknown][] = [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          id: `msg_${Date.now()}_${++calls}`,
          type: "message",
          role: "assistant",
          content: [],
          model: "claude-stub",
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      },
    ],
    ...blocks,
    [
      "message_delta",
      { type: "message_delta", delta: { stop_reason: typeof reply === "string" ? "end_turn" : "tool_use", stop_sequence: null }, usage: { output_tokens: 20 } },
    ],
    ["message_stop", { type: "message_stop" }],
  ];
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  res.end();
}

export async function startStub(): Promise<Stub> {
  const stub: Partial<Stub> & { requests: string[] } = {
    requests: [],
    reply: () => "Here is a canned answer from the stand-in, long enough to be worth keeping as a card.",
    behave: () => undefined,
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      if (req.method === "POST" && (req.url ?? "").startsWith("/v1/messages") && !(req.url ?? "").includes("count_tokens")) {
        stub.requests.push(body);
        const b = (stub as Stub).behave(body);
        if (b?.status) {
          res.writeHead(b.status, { "content-type": "application/json" });
          return res.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: b.errorMessage ?? "error" } }));
        }
        if (b?.delayMs) {
          const t = setTimeout(() => sse(res, (stub as Stub).reply(body)), b.delayMs);
          res.on("close", () => clearTimeout(t));
          return;
        }
        let streaming = true;
        try {
          streaming = (JSON.parse(body) as { stream?: boolean }).stream === true;
        } catch {
          /* keep streaming */
        }
        const reply = (stub as Stub).reply(body);
        if (streaming) return sse(res, reply);
        // The CLI asks for its turns streamed; a tool call is offered only there.
        const text = typeof reply === "string" ? reply : "";
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(
          JSON.stringify({
            id: "msg_stub",
            type: "message",
            role: "assistant",
            model: "claude-stub",
            content: [{ type: "text", text }],
            stop_reason: "end_turn",
            stop_sequence: null,
            usage: { input_tokens: 10, output_tokens: 20 },
          }),
        );
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  stub.url = `http://127.0.0.1:${port}`;
  stub.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return stub as Stub;
}
