/** In tests, the embedded bridge is the built one. */
import { readFileSync } from "node:fs";
import { BRIDGE } from "../helpers";

export const BRIDGE_SOURCE = readFileSync(BRIDGE, "utf8");
