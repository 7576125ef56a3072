#!/usr/bin/env node
/**
 * The package `bin` (`platform-auth`, dist/lib/cli/bin.js): runs the command line of
 * ./main.ts, always. A module of its own, so that running it never depends on how node was
 * asked to (a bin symlink, a path without `.js`, a wrapper that rewrites `argv[1]`): guessing
 * that from `argv[1]` once made such a start a silent exit 0 with no secrets written.
 *
 * @module
 */
import { main } from './main.ts';

process.exitCode = await main(process.argv.slice(2));
