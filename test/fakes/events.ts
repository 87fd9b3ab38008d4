/** Obsidian's Events, for the fake: shared by the app's parts that fire them. */

export interface EventRef {
  events: Events;
  name: string;
  fn: (...args: unknown[]) => unknown;
}

export class Events {
  private handlers = new Map<string, EventRef[]>();
  on(name: string, fn: (...args: never[]) => unknown, ctx?: unknown): EventRef {
    const ref: EventRef = { events: this, name, fn: ctx ? (fn as (...a: unknown[]) => unknown).bind(ctx) : (fn as (...a: unknown[]) => unknown) };
    this.handlers.set(name, [...(this.handlers.get(name) ?? []), ref]);
    return ref;
  }
  offref(ref: EventRef): void {
    this.handlers.set(
      ref.name,
      (this.handlers.get(ref.name) ?? []).filter((r) => r !== ref),
    );
  }
  trigger(name: string, ...args: unknown[]): void {
    for (const ref of this.handlers.get(name) ?? []) ref.fn(...args);
  }
  listenerCount(name: string): number {
    return this.handlers.get(name)?.length ?? 0;
  }
}
