/** How new cards are written: the settings, their defaults and their schema (see settings-schema.ts). */

import * as z from "zod/mini";
import { setting } from "../settings-schema";
import { isRelatedHeadingSetting } from "./related-heading";

export interface CardSettings {
  /** The heading of new related sections; "" follows the heading most of the vault's cards have. */
  relatedHeading: string;
}

export const DEFAULT_CARDS: CardSettings = { relatedHeading: "" };

export const CARDS_SCHEMA = z.object({
  relatedHeading: setting(
    z.string().check(z.trim(), z.refine(isRelatedHeadingSetting)),
    DEFAULT_CARDS.relatedHeading,
    '"" (follow the vault) or one heading such as "## Related"',
  ),
}) satisfies z.ZodMiniType<CardSettings, unknown>;
