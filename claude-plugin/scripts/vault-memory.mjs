#!/usr/bin/env node
import { createRequire } from "node:module";
createRequire(import.meta.url)("./vault-memory.cjs");
