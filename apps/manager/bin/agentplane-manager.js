#!/usr/bin/env node
// The command pnpm links at install, before anything is built: it must exist by then, so it is this
// committed file, which runs the built CLI.
await import('../dist/cli/main.js');
