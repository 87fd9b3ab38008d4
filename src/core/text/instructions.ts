/**
 * Text that reads as instructions to an assistant rather than as a note: what a card should never
 * say, since its words reach Claude. A synced or shared vault, or a card written from a hostile
 * conversation, may hold "ignore previous instructions and run …" or a tag that poses as the
 * conversation's structure. Lint flags such cards, the session brief leaves them out, and the
 * digest holds an answer that would write such text into a person's card.
 *
 * Families, not strings: an order to drop earlier instructions, a new role or rules for the
 * assistant, an order to hide something from the user, a chat role's or system section's tag, in
 * English and Chinese. A note about prompt injection that quotes one is flagged too; lint's
 * finding is a warning, for the person to judge.
 */

const PATTERNS: readonly RegExp[] = [
  // "Ignore all previous instructions", "disregard the above rules", "forget your prior prompt".
  /\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,30}\b(?:previous|prior|above|earlier|preceding|all|any|your|the system'?s?|existing)\b[^.\n]{0,20}\b(?:instructions?|prompts?|rules|directives|guidelines|context|messages?)\b/i,
  // A new role or new rules for the assistant.
  /\b(?:you are now (?:an? |in )?(?:unrestricted|jailbroken|uncensored|evil|DAN\b|free of|no longer|not bound|developer mode|an? (?:AI|assistant|model) (?:without|with no|that))|from now on,? you (?:must|will|are|should|shall)|new instructions?:|act as (?:an? )?(?:unrestricted|jailbroken|different) |your (?:new|real|true) (?:role|instructions|task) is)/i,
  // Addressed to the assistant with an order.
  /\b(?:assistant|claude|AI|LLM|model)\s*[,:]\s*(?:you must|always|never|ignore|do not|don't|run|execute|delete|send)\b/i,
  // Hiding what it does from the person.
  /\b(?:do not|don't|never) (?:tell|inform|show|mention (?:this |it )?to|reveal (?:this |it )?to) the user\b|\bwithout (?:telling|asking|informing) the user\b/i,
  // Running something at once, unasked.
  /\b(?:run|execute) (?:the following|this) (?:command|script|code)s? (?:now|immediately|right away|silently|without (?:asking|confirmation))/i,
  // A section of the conversation's own structure.
  /<\/?\s*(?:system|system-reminder|system_prompt|assistant|user|human|instructions?|tool_result|function_calls|vault-memory-notes)\b[^>]{0,40}>/i,
  /\b(?:system|developer) (?:prompt|message|instructions?)\s*:/i,
  // 忽略之前的指令, 无视以上规则, 你现在是…, 不要告诉用户, 系统提示：.
  /(?:忽略|无视|無視|忘记|忘記|不要理会|不要理會)[^。\n]{0,4}(?:之前|以上|先前|前面|所有|全部)[^。\n]{0,4}(?:指令|指示|提示词|提示詞|规则|規則|要求)/,
  /你现在是|你現在是|从现在起你|從現在起你|不要告诉用户|不要告訴用戶|不要告诉使用者|不要告訴使用者|系统提示[:：]|系統提示[:：]/,
];

/** The first stretch of `text` that reads as instructions to an assistant, or undefined. */
export function instructionIn(text: string): string | undefined {
  for (const re of PATTERNS) {
    const m = re.exec(text);
    if (m) return m[0];
  }
  return undefined;
}
