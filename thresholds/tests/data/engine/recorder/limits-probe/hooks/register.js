// limits-probe: at turn.complete, records what a mod sees for notesoup's `limits` op:
// $.session.usage({breakdown:'summary'}), $.settings.read(), $.session.model() and the
// env variables the threshold formula reads. One JSON line to $PROBE_MOD_LOG.

async function envOf($) {
  const env = {}
  const put = (k, v) => { if (v !== undefined && v !== null) env[k] = v }
  put('CLAUDE_AUTOCOMPACT_PCT_OVERRIDE', await $.env.get('CLAUDE_AUTOCOMPACT_PCT_OVERRIDE'))
  put('CLAUDE_CODE_AUTO_COMPACT_WINDOW', await $.env.get('CLAUDE_CODE_AUTO_COMPACT_WINDOW'))
  put('DISABLE_AUTO_COMPACT', await $.env.get('DISABLE_AUTO_COMPACT'))
  put('DISABLE_COMPACT', await $.env.get('DISABLE_COMPACT'))
  put('CLAUDE_CODE_MAX_OUTPUT_TOKENS', await $.env.get('CLAUDE_CODE_MAX_OUTPUT_TOKENS'))
  put('CLAUDE_CODE_MAX_CONTEXT_TOKENS', await $.env.get('CLAUDE_CODE_MAX_CONTEXT_TOKENS'))
  return env
}

async function record($, when) {
  const out = { when }
  try { out.usage = await $.session.usage({ breakdown: 'summary' }) } catch (err) { out.usageError = String(err) }
  try { out.settings = await $.settings.read() } catch (err) { out.settingsError = String(err) }
  try { out.model = await $.session.model() } catch (err) { out.modelError = String(err) }
  try { out.env = await envOf($) } catch (err) { out.envError = String(err) }
  const path = (await $.env.get('PROBE_MOD_LOG')) || '/tmp/limits-probe.log'
  await $.process.run(['sh', '-c', 'printf "%s\\n" "$1" >> "$2"', 'sh', JSON.stringify(out), path])
}

export const register = (on, options) => {
  on('turn.complete', async ($, e, next) => {
    const r = await next(e)
    if (!e.agentId) await record($, 'turn.complete')
    return r
  })
}
