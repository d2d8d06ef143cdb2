#!/usr/bin/env node
// The `notesoup` npm package's command: runs the `notesoup` binary of this platform's
// package (@notesoup/cli-<os>-<cpu>, an optional dependency npm installs only where it
// fits), passing the arguments, standard streams, exit status and signals through.
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const pkg = `@notesoup/cli-${process.platform}-${process.arch}`;
let bin;
try {
  bin = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'bin', 'notesoup');
} catch {
  process.stderr.write(
    `notesoup: no binary for ${process.platform}-${process.arch}: the package ${pkg} is not installed.\n` +
      `  It is installed with notesoup when your platform has one; reinstall with\n` +
      `  npm install notesoup (without --no-optional / --omit=optional), or build from source:\n` +
      `  cargo install --path cli (in a checkout of notesoup).\n`,
  );
  process.exit(1);
}
const run = spawnSync(bin, process.argv.slice(2), { stdio: 'inherit' });
if (run.error) {
  process.stderr.write(`notesoup: could not run ${bin}: ${run.error.message}\n`);
  process.exit(1);
}
if (run.signal) process.kill(process.pid, run.signal);
process.exit(run.status ?? 1);
