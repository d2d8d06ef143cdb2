#!/usr/bin/env node
// The `notesoup` npm package's command: runs the `notesoup` binary of this platform's
// package (@notesoup/cli-<os>-<cpu>, an optional dependency npm installs only where it
// fits), passing the arguments, standard streams and exit status through, and the signals
// sent to this launcher on to the binary (`timeout`, an MCP client stopping its server):
// the binary ends with them, then the launcher the same way.
'use strict';
const { spawn } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');

const platform = `${process.platform}-${process.arch}`;
const pkg = `@notesoup/cli-${platform}`;

/** The platforms this release has a binary for: the package's optional dependencies. */
function releasePlatforms() {
  try {
    const own = require(path.join(__dirname, '..', 'package.json'));
    return Object.keys(own.optionalDependencies || {})
      .filter((name) => name.startsWith('@notesoup/cli-'))
      .map((name) => name.slice('@notesoup/cli-'.length));
  } catch {
    return [];
  }
}

let bin;
try {
  bin = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'bin', 'notesoup');
} catch {
  const platforms = releasePlatforms();
  const why =
    platforms.length > 0 && !platforms.includes(platform)
      ? `notesoup: this release has no binary for ${platform} (it has ${platforms.join(', ')}).\n` +
        `  Build it from source instead: cargo install --path cli (in a checkout of notesoup).\n`
      : `notesoup: no binary for ${platform}: the package ${pkg} is not installed.\n` +
        `  It is installed with notesoup when your platform has one; reinstall with\n` +
        `  npm install notesoup (without --no-optional / --omit=optional), or build from source:\n` +
        `  cargo install --path cli (in a checkout of notesoup).\n`;
  process.stderr.write(why);
  process.exit(1);
}

const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit' });
// A signal sent to the launcher goes on to the binary, which decides what it means (Ctrl-C
// under a pager is the pager's); the launcher ends when the binary does. A terminal's
// Ctrl-C reaches both (one process group): the binary gets it once more, as the same signal.
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
for (const signal of forwarded) {
  process.on(signal, () => {
    try {
      child.kill(signal);
    } catch {
      // Already gone: its exit, below, ends the launcher.
    }
  });
}
child.on('error', (err) => {
  process.stderr.write(`notesoup: could not run ${bin}: ${err.message}\n`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (signal) {
    // End the same way, so the caller sees the signal: the default action, not our handler.
    // Node starts its debugger on SIGUSR1, so that one is not raised here.
    for (const s of forwarded) process.removeAllListeners(s);
    if (signal !== 'SIGUSR1') process.kill(process.pid, signal);
    // Still alive: Node ignores this signal (SIGPIPE, SIGXFSZ) or claims it (SIGUSR1). End
    // with the status a shell gives a death by it, 128 + its number, never 0.
    process.exit(128 + (os.constants.signals[signal] ?? 0));
  }
  process.exit(code ?? 1);
});
