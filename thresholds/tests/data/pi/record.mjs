// Records how the real Pi 1.6.0 reads its compaction settings and where it compacts, into
// `cases.json` (read by `thresholds/tests/pi.rs`). It runs Pi's own code from its npm package:
// `SettingsManager` (dist/core/settings-manager.js: the global and project layers, deep-merged,
// and `getCompactionSettings(model)`) and `shouldCompact` (dist/core/compaction/compaction.js).
//
//   eval "$(/work/shared/pi-harness/get_pi.sh)"
//   "$PI_NODE" thresholds/tests/data/pi/record.mjs "$PI_PKG_DIR" > thresholds/tests/data/pi/cases.json
import { readFileSync } from "node:fs";
import { join } from "node:path";

const pkg = process.argv[2];
if (!pkg) throw new Error("usage: node record.mjs <PI_PKG_DIR>");
const { SettingsManager, InMemorySettingsStorage } = await import(join(pkg, "dist/core/settings-manager.js"));
const { shouldCompact } = await import(join(pkg, "dist/core/compaction/compaction.js"));
const version = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version;

const model = { provider: "anthropic", id: "claude-sonnet-4-5" };
const key = `${model.provider}/${model.id}`;
const cases = [
  ["defaults", {}, {}],
  ["global-reserve", { compaction: { reserveTokens: 30000 } }, {}],
  ["project-over-global", { compaction: { reserveTokens: 30000 } }, { compaction: { reserveTokens: 10000 } }],
  ["project-untrusted", { compaction: { reserveTokens: 30000 } }, { compaction: { reserveTokens: 10000 } }, { trusted: false }],
  ["whole-float", { compaction: { reserveTokens: 20000.0, keepRecentTokens: 1e3 } }, {}],
  ["disabled-global", { compaction: { enabled: false } }, {}],
  ["disabled-global-enabled-project", { compaction: { enabled: false } }, { compaction: { enabled: true } }],
  ["enabled-zero", { compaction: { enabled: 0 } }, {}],
  ["enabled-empty-string", { compaction: { enabled: "" } }, {}],
  ["enabled-string-false", { compaction: { enabled: "false" } }, {}],
  ["enabled-null", { compaction: { enabled: null } }, {}],
  ["enabled-object", { compaction: { enabled: {} } }, {}],
  ["model-override", { compaction: { reserveTokens: 30000, modelOverrides: { [key]: { reserveTokens: 50000 } } } }, {}],
  ["model-override-other-model", { compaction: { modelOverrides: { "anthropic/other": { reserveTokens: 50000 } } } }, {}],
  ["model-override-merged", { compaction: { modelOverrides: { [key]: { keepRecentTokens: 100 } } } }, { compaction: { modelOverrides: { [key]: { reserveTokens: 40000 } } } }],
  ["model-override-array", { compaction: { modelOverrides: [] } }, {}],
  ["model-overrides-null", { compaction: { modelOverrides: null, reserveTokens: 1000 } }, {}],
  ["compaction-null-project", { compaction: { reserveTokens: 30000, enabled: false } }, { compaction: null }],
  ["compaction-number-project", { compaction: { reserveTokens: 30000 } }, { compaction: 5 }],
  ["compaction-array", { compaction: [1, 2] }, {}],
  ["notesoup-margins-merged", { notesoup: { resetMarginTokens: 4096 } }, { notesoup: { warningRunwayTokens: 8192 } }],
  ["window-128k", {}, {}, { window: 128000 }],
  ["reserve-zero", { compaction: { reserveTokens: 0 } }, {}],
  ["reserve-over-window", { compaction: { reserveTokens: 300000 } }, {}],
  ["bad-reserve-negative", { compaction: { reserveTokens: -1 } }, {}],
  ["bad-reserve-string", { compaction: { reserveTokens: "16k" } }, {}],
  ["bad-reserve-fraction", { compaction: { reserveTokens: 1.5 } }, {}],
  ["bad-reserve-null", { compaction: { reserveTokens: null } }, {}],
  ["bad-reserve-unsafe", { compaction: { reserveTokens: 9007199254740992 } }, {}],
  ["bad-keep-recent", { compaction: { keepRecentTokens: "lots" } }, {}],
  ["bad-keep-recent-disabled", { compaction: { enabled: false, keepRecentTokens: -5 } }, {}],
  ["bad-override-entry", { compaction: { modelOverrides: { [key]: 5 } } }, {}],
  ["bad-override-entry-null", { compaction: { modelOverrides: { [key]: null } } }, {}],
  ["bad-override-value", { compaction: { modelOverrides: { [key]: { reserveTokens: -2 } } } }, {}],
];

const out = [];
for (const [name, global, project, opts = {}] of cases) {
  const storage = new InMemorySettingsStorage();
  storage.global = JSON.stringify(global);
  storage.project = JSON.stringify(project);
  const trusted = opts.trusted ?? true;
  const window = opts.window ?? 200000;
  const manager = SettingsManager.fromStorage(storage, { projectTrusted: trusted });
  const merged = manager.getSettings();
  const pi = { merged };
  try {
    const settings = manager.getCompactionSettings(model);
    pi.enabled = Boolean(settings.enabled);
    pi.reserveTokens = settings.reserveTokens;
    pi.keepRecentTokens = settings.keepRecentTokens;
    // The smallest context size Pi compacts at (shouldCompact is monotone in the size).
    let lo = 0, hi = 2 * window;
    if (!shouldCompact(hi, window, settings)) {
      pi.compactsAt = null;
    } else {
      while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2);
        if (shouldCompact(mid, window, settings)) hi = mid; else lo = mid + 1;
      }
      pi.compactsAt = lo;
    }
  } catch (error) {
    pi.error = String(error.message);
  }
  out.push({ case: name, global, project, projectTrusted: trusted, model: key, window, pi });
}
console.log(JSON.stringify({
  pi: version,
  produced_by: "thresholds/tests/data/pi/record.mjs: Pi's own SettingsManager.getCompactionSettings(model) and shouldCompact from @earendil-works/pi-coding-agent's dist/ (no model, no network)",
  cases: out,
}, null, 1));
